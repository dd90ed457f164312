//! Maps: a B-tree of `(key, value)` entries in the runtime's total order of keys, so
//! every backend iterates, formats and compares a map alike (docs/language.md, "Maps",
//! says what each operation costs; docs/architecture.md why a B-tree).
//!
//! A map's handle is one pointer: null for the empty map (what `init` writes, owning
//! nothing), else a [`Tree`] the runtime allocated, which goes again when the last
//! entry is removed. The map descriptor's `elem` is the entry tuple, whose two fields
//! are the key (at offset 0) and the value; a node holds up to [`CAPACITY`] entries laid
//! out as that tuple, one after the other, and an internal node one child more. Every
//! node knows its parent, its place in the parent and how many entries its subtree
//! holds, so a walk steps from entry to entry and `map_entry_at` finds entry `i` in
//! O(log n) (and the next one after the last it gave in O(1), which is how every walk
//! over the map's entries goes).
//!
//! Keys are ordered by the key type's [`OrderPlan`], made once per operation, so a
//! search among integer or string keys never walks the key's descriptor.
//!
//! Moves in (`map_insert`) make key and value the map's whatever happens: a key already
//! present keeps its entry, whose old value is dropped and replaced, and the key handed
//! in is dropped.

use std::cell::Cell;
use std::cmp::Ordering;
use std::ffi::c_void;
use std::mem::{align_of, size_of};
use std::ptr::null_mut;

use datalove_rti::order::{Leaf, OrderPlan};
use datalove_rti::rtdt::Map;
use datalove_rti::rtdt::String as RtString;
use datalove_rti::status::{RtStatus, STATUS_NOT_FOUND, STATUS_OK};
use datalove_rti::table::{Rt, Td};
use datalove_rti::TyDesc;

use crate::state::Runtime;
use crate::values::read;

/// The message `map_remove` sets for a key the map does not have.
pub const KEY_NOT_FOUND_MESSAGE: &str = "key not found";

/// The B-tree's order: every node but the root holds `ORDER - 1` to `CAPACITY` entries.
const ORDER: usize = 6;
/// The most entries a node holds.
pub const CAPACITY: usize = 2 * ORDER - 1;
/// The fewest entries a node other than the root holds.
const MINIMUM: usize = ORDER - 1;

/// What a map's handle points at.
struct Tree {
    root: *mut Node,
    /// The entry `map_entry_at` gave last (index, node, place), so that the next index
    /// is one step away; any change to the map forgets it.
    last: Cell<(usize, *mut Node, usize)>,
    /// Where the last lookup ended: the node and place of the key it found, or the leaf
    /// and place the key would go in (`found` false); null for none. An insert checks it
    /// first with one or two comparisons (a count's `get` then `insert` of one key
    /// searches once); any change to the map's nodes forgets it.
    hint: Cell<Hint>,
}

/// A lookup's end (see [`Tree::hint`]).
#[derive(Clone, Copy)]
struct Hint {
    node: *mut Node,
    place: usize,
    found: bool,
}

const NO_HINT: Hint = Hint {
    node: null_mut(),
    place: 0,
    found: false,
};

/// Room for one entry on the stack when it is small (every map of scalars and strings),
/// else on the heap: an insert builds the new entry, and a split its middle one, here.
/// Never read before an entry is copied in, so never zeroed.
struct EntryRoom {
    small: std::mem::MaybeUninit<[u64; 16]>,
    large: Vec<u64>,
}

impl EntryRoom {
    fn new(size: usize) -> EntryRoom {
        let words = size.div_ceil(8);
        EntryRoom {
            small: std::mem::MaybeUninit::uninit(),
            large: if words > 16 {
                vec![0; words]
            } else {
                Vec::new()
            },
        }
    }

    fn as_mut_ptr(&mut self) -> *mut u8 {
        if self.large.is_empty() {
            self.small.as_mut_ptr().cast()
        } else {
            self.large.as_mut_ptr().cast()
        }
    }
}

/// The head of every node; its entries (and an internal node's children) follow at the
/// offsets [`Shape`] computes for the map's entry type.
#[repr(C)]
struct Node {
    parent: *mut Node,
    /// This node's place among its parent's children.
    place: u32,
    len: u32,
    leaf: bool,
    /// The entries in this node and every node below it.
    size: usize,
}

/// The byte layout of one map type's nodes.
struct Shape<'a> {
    entry: &'a TyDesc,
    key: &'a TyDesc,
    key_offset: usize,
    value: &'a TyDesc,
    value_offset: usize,
    entries_at: usize,
    children_at: usize,
    align: usize,
}

fn round_up(n: usize, align: usize) -> usize {
    n.div_ceil(align) * align
}

impl<'a> Shape<'a> {
    /// # Safety
    /// `map_td` a well-formed map descriptor.
    unsafe fn of(map_td: &'a TyDesc) -> Shape<'a> {
        let entry = map_td.elem();
        let fields = entry.fields();
        let align = entry.align.max(align_of::<Node>());
        let entries_at = round_up(size_of::<Node>(), entry.align.max(1));
        let children_at = round_up(entries_at + CAPACITY * entry.size, align_of::<*mut Node>());
        Shape {
            entry,
            key: &*fields[0].desc,
            key_offset: fields[0].offset,
            value: &*fields[1].desc,
            value_offset: fields[1].offset,
            entries_at,
            children_at,
            align,
        }
    }

    fn bytes(&self, leaf: bool) -> usize {
        if leaf {
            self.entries_at + CAPACITY * self.entry.size
        } else {
            self.children_at + (CAPACITY + 1) * size_of::<*mut Node>()
        }
    }

    unsafe fn entry(&self, node: *mut Node, i: usize) -> *mut u8 {
        node.cast::<u8>().add(self.entries_at + i * self.entry.size)
    }

    unsafe fn key(&self, node: *mut Node, i: usize) -> *mut u8 {
        self.entry(node, i).add(self.key_offset)
    }

    unsafe fn value(&self, node: *mut Node, i: usize) -> *mut u8 {
        self.entry(node, i).add(self.value_offset)
    }

    unsafe fn child_slot(&self, node: *mut Node, i: usize) -> *mut *mut Node {
        node.cast::<u8>()
            .add(self.children_at)
            .cast::<*mut Node>()
            .add(i)
    }

    unsafe fn child(&self, node: *mut Node, i: usize) -> *mut Node {
        *self.child_slot(node, i)
    }

    /// Puts `child` at place `i` of `node`, telling it so.
    unsafe fn set_child(&self, node: *mut Node, i: usize, child: *mut Node) {
        *self.child_slot(node, i) = child;
        (*child).parent = node;
        (*child).place = i as u32;
    }

    /// Moves entries `from..from + n` of `src` to `to..` of `dst` (which may overlap).
    unsafe fn move_entries(
        &self,
        src: *mut Node,
        from: usize,
        dst: *mut Node,
        to: usize,
        n: usize,
    ) {
        if n > 0 && self.entry.size > 0 {
            std::ptr::copy(
                self.entry(src, from),
                self.entry(dst, to),
                n * self.entry.size,
            );
        }
    }

    /// Moves children `from..from + n` of `src` to `to..` of `dst`, renumbering them.
    unsafe fn move_children(
        &self,
        src: *mut Node,
        from: usize,
        dst: *mut Node,
        to: usize,
        n: usize,
    ) {
        std::ptr::copy(self.child_slot(src, from), self.child_slot(dst, to), n);
        for i in to..to + n {
            self.set_child(dst, i, self.child(dst, i));
        }
    }

    /// The subtree size of `node` counted from its entries and children.
    unsafe fn count(&self, node: *mut Node) -> usize {
        let len = (*node).len as usize;
        if (*node).leaf {
            return len;
        }
        (0..=len)
            .map(|i| (*self.child(node, i)).size)
            .sum::<usize>()
            + len
    }
}

/// Where a search for a key in one node ended.
enum Place {
    Found(usize),
    /// Not in this node: the key belongs before entry `i` (in child `i`, if any).
    Before(usize),
}

impl Runtime {
    /// The tree behind a map handle, if the map has entries.
    unsafe fn tree<'t>(map: &Map) -> Option<&'t Tree> {
        map.raw().cast::<Tree>().as_ref()
    }

    /// The number of entries.
    ///
    /// # Safety
    /// `map` a live map of this runtime.
    pub(crate) unsafe fn map_len_of(&self, map: &Map) -> usize {
        Self::tree(map).map_or(0, |t| (*t.root).size)
    }

    unsafe fn new_node(&self, shape: &Shape, leaf: bool) -> *mut Node {
        let node = self.alloc(shape.bytes(leaf), shape.align).cast::<Node>();
        node.write(Node {
            parent: null_mut(),
            place: 0,
            len: 0,
            leaf,
            size: 0,
        });
        node
    }

    unsafe fn free_node(&self, shape: &Shape, node: *mut Node) {
        self.free(node.cast(), shape.bytes((*node).leaf), shape.align);
    }

    /// Searches one node's entries for `key`, by binary search: for integer and string
    /// keys with the comparison made for their type (no dispatch per comparison), else
    /// by the plan.
    unsafe fn search_node(
        &self,
        shape: &Shape,
        plan: &OrderPlan,
        node: *mut Node,
        key: *const u8,
    ) -> Place {
        macro_rules! by_value {
            ($t:ty) => {{
                let key = read::<$t>(key);
                search_below(
                    shape,
                    node,
                    |at| read::<$t>(at) < key,
                    |at| read::<$t>(at) == key,
                )
            }};
        }
        match plan {
            OrderPlan::Leaf(Leaf::I64) => by_value!(i64),
            OrderPlan::Leaf(Leaf::U64) => by_value!(u64),
            OrderPlan::Leaf(Leaf::I32) => by_value!(i32),
            OrderPlan::Leaf(Leaf::U32) => by_value!(u32),
            OrderPlan::Leaf(Leaf::String) => {
                let key = (*key.cast::<RtString>()).as_bytes();
                search_by(shape, node, |at| {
                    (*at.cast::<RtString>()).as_bytes().cmp(key)
                })
            }
            _ => search_by(shape, node, |at| self.compare_keys(shape, plan, at, key)),
        }
    }

    /// The order of two keys of the map's key type.
    unsafe fn compare_keys(
        &self,
        shape: &Shape,
        plan: &OrderPlan,
        a: *const u8,
        b: *const u8,
    ) -> Ordering {
        match plan.compare(a, b) {
            Some(order) => order,
            None => self.compare_values(a, b, shape.key),
        }
    }

    /// Where `key` is, as [`Self::map_search`] says, when the tree's hint shows it: the
    /// key at the hinted place is `key`, or the keys on either side of the hinted gap in
    /// a leaf (the gap's neighbours in the whole order) are below and above it. `None`:
    /// no hint, or it is about another key.
    unsafe fn hinted(
        &self,
        tree: &Tree,
        shape: &Shape,
        plan: &OrderPlan,
        key: *const u8,
    ) -> Option<(*mut Node, Result<usize, usize>)> {
        let Hint { node, place, found } = tree.hint.get();
        if node.is_null() {
            return None;
        }
        if found {
            let same = self.compare_keys(shape, plan, shape.key(node, place), key);
            return (same == Ordering::Equal).then_some((node, Ok(place)));
        }
        if let Some(before) = gap_neighbour(shape, node, place, false) {
            if self.compare_keys(shape, plan, before, key) != Ordering::Less {
                return None;
            }
        }
        if let Some(after) = gap_neighbour(shape, node, place, true) {
            if self.compare_keys(shape, plan, after, key) != Ordering::Greater {
                return None;
            }
        }
        Some((node, Err(place)))
    }

    /// The node and place holding `key`, or the leaf and place it would go in.
    unsafe fn map_search(
        &self,
        tree: &Tree,
        shape: &Shape,
        plan: &OrderPlan,
        key: *const u8,
    ) -> (*mut Node, Result<usize, usize>) {
        let mut node = tree.root;
        loop {
            match self.search_node(shape, plan, node, key) {
                Place::Found(i) => return (node, Ok(i)),
                Place::Before(i) if (*node).leaf => return (node, Err(i)),
                Place::Before(i) => node = shape.child(node, i),
            }
        }
    }

    /// The value at `key`, or null.
    ///
    /// # Safety
    /// `map` a live `map_td` map; `key` an initialized key.
    pub(crate) unsafe fn map_find_value(
        &self,
        map: &Map,
        map_td: &TyDesc,
        key: *const u8,
    ) -> *mut u8 {
        let Some(tree) = Self::tree(map) else {
            return null_mut();
        };
        let shape = Shape::of(map_td);
        let (node, place) = self.map_search(tree, &shape, &OrderPlan::of(shape.key), key);
        tree.hint.set(Hint {
            node,
            place: place.unwrap_or_else(|gap| gap),
            found: place.is_ok(),
        });
        match place {
            Ok(i) => shape.value(node, i),
            Err(_) => null_mut(),
        }
    }

    /// A deep copy of a map.
    ///
    /// # Safety
    /// `map` a live `map_td` map of this runtime.
    pub(crate) unsafe fn clone_map(&self, map: &Map, map_td: &TyDesc) -> Map {
        let Some(tree) = Self::tree(map) else {
            return Map::from_raw(null_mut());
        };
        let shape = Shape::of(map_td);
        let root = self.clone_node(&shape, tree.root);
        self.new_tree(root)
    }

    unsafe fn clone_node(&self, shape: &Shape, node: *mut Node) -> *mut Node {
        let copy = self.new_node(shape, (*node).leaf);
        let len = (*node).len as usize;
        if shape.entry.is_copy() {
            shape.move_entries(node, 0, copy, 0, len);
        } else {
            for i in 0..len {
                self.clone_value(shape.entry(node, i), shape.entry, shape.entry(copy, i));
            }
        }
        (*copy).len = len as u32;
        (*copy).size = (*node).size;
        if !(*node).leaf {
            for i in 0..=len {
                let child = self.clone_node(shape, shape.child(node, i));
                shape.set_child(copy, i, child);
            }
        }
        copy
    }

    unsafe fn new_tree(&self, root: *mut Node) -> Map {
        let tree = self
            .alloc(size_of::<Tree>(), align_of::<Tree>())
            .cast::<Tree>();
        tree.write(Tree {
            root,
            last: Cell::new((usize::MAX, null_mut(), 0)),
            hint: Cell::new(NO_HINT),
        });
        Map::from_raw(tree.cast())
    }

    /// Drops every entry and frees the map.
    ///
    /// # Safety
    /// `map` a live `map_td` map of this runtime, not used again.
    pub(crate) unsafe fn free_map(&self, map: Map, map_td: &TyDesc) {
        let Some(tree) = Self::tree(&map) else {
            return;
        };
        let shape = Shape::of(map_td);
        self.free_node_tree(&shape, tree.root);
        self.free(map.raw().cast(), size_of::<Tree>(), align_of::<Tree>());
    }

    unsafe fn free_node_tree(&self, shape: &Shape, node: *mut Node) {
        let len = (*node).len as usize;
        if !shape.entry.is_copy() {
            for i in 0..len {
                self.drop_value(shape.entry(node, i), shape.entry);
            }
        }
        if !(*node).leaf {
            for i in 0..=len {
                self.free_node_tree(shape, shape.child(node, i));
            }
        }
        self.free_node(shape, node);
    }

    /// Moves `key` and `value` in (see the module doc).
    ///
    /// # Safety
    /// `map` a live `map_td` map; `key` and `value` initialized values of its key and
    /// value types, the map's afterwards.
    pub(crate) unsafe fn map_insert_value(
        &self,
        map: &mut Map,
        map_td: &TyDesc,
        key: *mut u8,
        value: *mut u8,
    ) {
        let shape = Shape::of(map_td);
        let tree = map.raw().cast::<Tree>();
        if tree.is_null() {
            let root = self.new_node(&shape, true);
            self.put_entry(&shape, root, 0, key, value);
            (*root).len = 1;
            (*root).size = 1;
            *map = self.new_tree(root);
            return;
        }
        let tree = &mut *tree;
        tree.last.set((usize::MAX, null_mut(), 0));
        let plan = OrderPlan::of(shape.key);
        let place = match self.hinted(tree, &shape, &plan, key) {
            Some(place) => place,
            None => self.map_search(tree, &shape, &plan, key),
        };
        tree.hint.set(NO_HINT);
        match place {
            (node, Ok(i)) => {
                let slot = shape.value(node, i);
                self.drop_value(slot, shape.value);
                std::ptr::copy_nonoverlapping(value, slot, shape.value.size);
                self.drop_value(key, shape.key);
            }
            (leaf, Err(i)) => {
                // The new entry is built in a scratch entry, then moved into the leaf.
                let mut scratch = EntryRoom::new(shape.entry.size);
                let entry = scratch.as_mut_ptr();
                std::ptr::copy_nonoverlapping(key, entry.add(shape.key_offset), shape.key.size);
                std::ptr::copy_nonoverlapping(
                    value,
                    entry.add(shape.value_offset),
                    shape.value.size,
                );
                self.insert_entry(&shape, tree, leaf, i, entry, null_mut());
            }
        }
    }

    /// Writes a new entry's key and value at place `i` of `node` (room made already).
    unsafe fn put_entry(
        &self,
        shape: &Shape,
        node: *mut Node,
        i: usize,
        key: *const u8,
        value: *const u8,
    ) {
        std::ptr::copy_nonoverlapping(key, shape.key(node, i), shape.key.size);
        std::ptr::copy_nonoverlapping(value, shape.value(node, i), shape.value.size);
    }

    /// Inserts `entry` (moved from) at place `i` of `node`, and, in an internal node, the
    /// child `right` after it; a full node splits and sends its middle entry up.
    unsafe fn insert_entry(
        &self,
        shape: &Shape,
        tree: &mut Tree,
        mut node: *mut Node,
        mut i: usize,
        entry: *mut u8,
        mut right: *mut Node,
    ) {
        let esize = shape.entry.size;
        // The middle entry a split sends up, kept here between levels.
        let mut carried = EntryRoom::new(esize);
        let carry = carried.as_mut_ptr();
        if esize > 0 {
            std::ptr::copy_nonoverlapping(entry, carry, esize);
        }
        loop {
            let len = (*node).len as usize;
            if len < CAPACITY {
                self.place_in(shape, node, i, carry, right);
                let mut up = node;
                while !up.is_null() {
                    (*up).size += 1;
                    up = (*up).parent;
                }
                return;
            }
            // Split: entries 0..MINIMUM stay, MINIMUM goes up, MINIMUM + 1.. go right.
            let sibling = self.new_node(shape, (*node).leaf);
            let moved = CAPACITY - MINIMUM - 1;
            shape.move_entries(node, MINIMUM + 1, sibling, 0, moved);
            if !(*node).leaf {
                shape.move_children(node, MINIMUM + 1, sibling, 0, moved + 1);
            }
            (*node).len = MINIMUM as u32;
            (*sibling).len = moved as u32;
            let mut middle = EntryRoom::new(esize);
            let middle_at = middle.as_mut_ptr();
            if esize > 0 {
                std::ptr::copy_nonoverlapping(shape.entry(node, MINIMUM), middle_at, esize);
            }
            // The carried entry (and its right child) goes to the half it belongs in.
            if i <= MINIMUM {
                self.place_in(shape, node, i, carry, right);
            } else {
                self.place_in(shape, sibling, i - MINIMUM - 1, carry, right);
            }
            (*node).size = shape.count(node);
            (*sibling).size = shape.count(sibling);
            if esize > 0 {
                std::ptr::copy_nonoverlapping(middle_at, carry, esize);
            }
            right = sibling;
            let parent = (*node).parent;
            if parent.is_null() {
                let root = self.new_node(shape, false);
                if esize > 0 {
                    std::ptr::copy_nonoverlapping(carry, shape.entry(root, 0), esize);
                }
                (*root).len = 1;
                shape.set_child(root, 0, node);
                shape.set_child(root, 1, right);
                (*root).size = shape.count(root);
                tree.root = root;
                return;
            }
            i = (*node).place as usize;
            node = parent;
        }
    }

    /// Inserts `entry` at place `i` of a node with room, and `right` as child `i + 1`.
    unsafe fn place_in(
        &self,
        shape: &Shape,
        node: *mut Node,
        i: usize,
        entry: *const u8,
        right: *mut Node,
    ) {
        let len = (*node).len as usize;
        shape.move_entries(node, i, node, i + 1, len - i);
        if shape.entry.size > 0 {
            std::ptr::copy_nonoverlapping(entry, shape.entry(node, i), shape.entry.size);
        }
        if !(*node).leaf {
            shape.move_children(node, i + 1, node, i + 2, len - i);
            shape.set_child(node, i + 1, right);
        }
        (*node).len = (len + 1) as u32;
    }

    /// Moves the value at `key` out to `out` and drops the entry's key; false when the
    /// map has no such key (and is unchanged).
    ///
    /// # Safety
    /// `map` a live `map_td` map; `key` initialized; `out` room for a value.
    pub(crate) unsafe fn map_remove_value(
        &self,
        map: &mut Map,
        map_td: &TyDesc,
        key: *const u8,
        out: *mut u8,
    ) -> bool {
        let tree = map.raw().cast::<Tree>();
        if tree.is_null() {
            return false;
        }
        let tree = &mut *tree;
        let shape = Shape::of(map_td);
        let (node, Ok(i)) = self.map_search(tree, &shape, &OrderPlan::of(shape.key), key) else {
            return false;
        };
        tree.last.set((usize::MAX, null_mut(), 0));
        tree.hint.set(NO_HINT);
        std::ptr::copy_nonoverlapping(shape.value(node, i), out, shape.value.size);
        self.drop_value(shape.key(node, i), shape.key);
        // An internal entry is replaced by its predecessor, the last of the leaf at the
        // bottom right of the child before it; then one entry leaves a leaf.
        let (leaf, at) = if (*node).leaf {
            (node, i)
        } else {
            let mut leaf = shape.child(node, i);
            while !(*leaf).leaf {
                leaf = shape.child(leaf, (*leaf).len as usize);
            }
            let last = (*leaf).len as usize - 1;
            shape.move_entries(leaf, last, node, i, 1);
            (leaf, last)
        };
        let len = (*leaf).len as usize;
        shape.move_entries(leaf, at + 1, leaf, at, len - at - 1);
        (*leaf).len = (len - 1) as u32;
        let mut up = leaf;
        while !up.is_null() {
            (*up).size -= 1;
            up = (*up).parent;
        }
        self.rebalance(&shape, tree, leaf);
        if (*tree.root).len == 0 && (*tree.root).leaf {
            self.free_node(&shape, tree.root);
            self.free(map.raw().cast(), size_of::<Tree>(), align_of::<Tree>());
            map.set_raw(null_mut());
        }
        true
    }

    /// Restores the minimum fill from `node` upwards after it lost an entry: a sibling
    /// with entries to spare lends one through the parent, else the two merge.
    unsafe fn rebalance(&self, shape: &Shape, tree: &mut Tree, mut node: *mut Node) {
        loop {
            let parent = (*node).parent;
            if parent.is_null() {
                // The root may be empty only as a leaf; an empty internal root gives its
                // one child the place.
                if (*node).len == 0 && !(*node).leaf {
                    let child = shape.child(node, 0);
                    (*child).parent = null_mut();
                    (*child).place = 0;
                    tree.root = child;
                    self.free_node(shape, node);
                }
                return;
            }
            if (*node).len as usize >= MINIMUM {
                return;
            }
            let place = (*node).place as usize;
            let parent_len = (*parent).len as usize;
            if place > 0 {
                let left = shape.child(parent, place - 1);
                if (*left).len as usize > MINIMUM {
                    self.rotate_right(shape, parent, place - 1);
                    return;
                }
            }
            if place < parent_len {
                let right = shape.child(parent, place + 1);
                if (*right).len as usize > MINIMUM {
                    self.rotate_left(shape, parent, place);
                    return;
                }
            }
            let separator = if place > 0 { place - 1 } else { place };
            self.merge(shape, parent, separator);
            node = parent;
        }
    }

    /// The last entry of child `sep` goes up to entry `sep` of `parent`, which goes down
    /// to the front of child `sep + 1` (with the left child's last child).
    unsafe fn rotate_right(&self, shape: &Shape, parent: *mut Node, sep: usize) {
        let (left, right) = (shape.child(parent, sep), shape.child(parent, sep + 1));
        let (ll, rl) = ((*left).len as usize, (*right).len as usize);
        shape.move_entries(right, 0, right, 1, rl);
        shape.move_entries(parent, sep, right, 0, 1);
        shape.move_entries(left, ll - 1, parent, sep, 1);
        let mut moved = 0;
        if !(*left).leaf {
            shape.move_children(right, 0, right, 1, rl + 1);
            let child = shape.child(left, ll);
            shape.set_child(right, 0, child);
            moved = (*child).size;
        }
        (*left).len = (ll - 1) as u32;
        (*right).len = (rl + 1) as u32;
        (*left).size -= 1 + moved;
        (*right).size += 1 + moved;
    }

    /// The first entry of child `sep + 1` goes up to entry `sep` of `parent`, which goes
    /// down to the end of child `sep` (with the right child's first child).
    unsafe fn rotate_left(&self, shape: &Shape, parent: *mut Node, sep: usize) {
        let (left, right) = (shape.child(parent, sep), shape.child(parent, sep + 1));
        let (ll, rl) = ((*left).len as usize, (*right).len as usize);
        shape.move_entries(parent, sep, left, ll, 1);
        shape.move_entries(right, 0, parent, sep, 1);
        shape.move_entries(right, 1, right, 0, rl - 1);
        let mut moved = 0;
        if !(*left).leaf {
            let child = shape.child(right, 0);
            shape.set_child(left, ll + 1, child);
            shape.move_children(right, 1, right, 0, rl);
            moved = (*child).size;
        }
        (*left).len = (ll + 1) as u32;
        (*right).len = (rl - 1) as u32;
        (*left).size += 1 + moved;
        (*right).size -= 1 + moved;
    }

    /// Child `sep`, entry `sep` of `parent` and child `sep + 1` become one node.
    unsafe fn merge(&self, shape: &Shape, parent: *mut Node, sep: usize) {
        let (left, right) = (shape.child(parent, sep), shape.child(parent, sep + 1));
        let (ll, rl) = ((*left).len as usize, (*right).len as usize);
        let pl = (*parent).len as usize;
        shape.move_entries(parent, sep, left, ll, 1);
        shape.move_entries(right, 0, left, ll + 1, rl);
        if !(*left).leaf {
            shape.move_children(right, 0, left, ll + 1, rl + 1);
        }
        (*left).len = (ll + 1 + rl) as u32;
        (*left).size += 1 + (*right).size;
        shape.move_entries(parent, sep + 1, parent, sep, pl - sep - 1);
        shape.move_children(parent, sep + 2, parent, sep + 1, pl - sep - 1);
        (*parent).len = (pl - 1) as u32;
        self.free_node(shape, right);
    }

    /// Entry `index` in key order, or null past the end.
    ///
    /// # Safety
    /// `map` a live `map_td` map.
    pub(crate) unsafe fn map_entry(&self, map: &Map, map_td: &TyDesc, index: usize) -> *mut u8 {
        let Some(tree) = Self::tree(map) else {
            return null_mut();
        };
        if index >= (*tree.root).size {
            return null_mut();
        }
        let shape = Shape::of(map_td);
        let (last, node, place) = tree.last.get();
        let found = if last != usize::MAX && index == last + 1 {
            next_entry(&shape, node, place).expect("an entry after one before the end")
        } else if last == index {
            (node, place)
        } else {
            entry_by_index(&shape, tree.root, index)
        };
        tree.last.set((index, found.0, found.1));
        shape.entry(found.0, found.1)
    }

    /// Calls `each` with every entry in key order.
    ///
    /// # Safety
    /// `map` a live `map_td` map, unchanged by `each`.
    pub(crate) unsafe fn map_walk(
        &self,
        map: &Map,
        map_td: &TyDesc,
        mut each: impl FnMut(*mut u8),
    ) {
        let Some(tree) = Self::tree(map) else {
            return;
        };
        let shape = Shape::of(map_td);
        let mut at = Some(first_entry(&shape, tree.root));
        while let Some((node, place)) = at {
            each(shape.entry(node, place));
            at = next_entry(&shape, node, place);
        }
    }

    /// Two maps' order: entry by entry in key order, a prefix first.
    ///
    /// # Safety
    /// Both live `map_td` maps.
    pub(crate) unsafe fn compare_maps(&self, a: &Map, b: &Map, map_td: &TyDesc) -> Ordering {
        let shape = Shape::of(map_td);
        let start = |map: &Map| Self::tree(map).map(|t| first_entry(&shape, t.root));
        let (mut at_a, mut at_b) = (start(a), start(b));
        loop {
            match (at_a, at_b) {
                (None, None) => return Ordering::Equal,
                (None, Some(_)) => return Ordering::Less,
                (Some(_), None) => return Ordering::Greater,
                (Some((na, pa)), Some((nb, pb))) => {
                    let o =
                        self.compare_values(shape.entry(na, pa), shape.entry(nb, pb), shape.entry);
                    if o != Ordering::Equal {
                        return o;
                    }
                    at_a = next_entry(&shape, na, pa);
                    at_b = next_entry(&shape, nb, pb);
                }
            }
        }
    }
}

/// The first entry of the subtree at `node` (which holds at least one).
/// The key just before (`after` false) or just after gap `place` of leaf `node` in the
/// whole map's order: in the leaf, or the separator of the nearest ancestor on that
/// side; `None` at the map's first or last gap.
unsafe fn gap_neighbour(
    shape: &Shape,
    mut node: *mut Node,
    place: usize,
    after: bool,
) -> Option<*mut u8> {
    let len = (*node).len as usize;
    if !after && place > 0 {
        return Some(shape.key(node, place - 1));
    }
    if after && place < len {
        return Some(shape.key(node, place));
    }
    loop {
        let parent = (*node).parent;
        if parent.is_null() {
            return None;
        }
        let at = (*node).place as usize;
        if !after && at > 0 {
            return Some(shape.key(parent, at - 1));
        }
        if after && at < (*parent).len as usize {
            return Some(shape.key(parent, at));
        }
        node = parent;
    }
}

/// Binary search of one node's keys, `order(at)` being the key at `at` against the one
/// looked for.
#[inline(always)]
unsafe fn search_by(
    shape: &Shape,
    node: *mut Node,
    mut order: impl FnMut(*const u8) -> Ordering,
) -> Place {
    let (mut lo, mut hi) = (0usize, (*node).len as usize);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        match order(shape.key(node, mid)) {
            Ordering::Less => lo = mid + 1,
            Ordering::Greater => hi = mid,
            Ordering::Equal => return Place::Found(mid),
        }
    }
    Place::Before(lo)
}

/// [`search_by`] for keys whose `<` and `==` are one instruction each (integers): the
/// first key not below the one looked for, found by a scan from the first (a node holds
/// at most [`CAPACITY`] keys: the scan is about as many instructions as a binary
/// search's steps, each a load, a test and a step, and its one exit is predicted where
/// a binary search's every step is a coin toss), then tested for equality once.
#[inline(always)]
unsafe fn search_below(
    shape: &Shape,
    node: *mut Node,
    mut below: impl FnMut(*const u8) -> bool,
    mut equal: impl FnMut(*const u8) -> bool,
) -> Place {
    let len = (*node).len as usize;
    let mut i = 0;
    while i < len && below(shape.key(node, i)) {
        i += 1;
    }
    if i < len && equal(shape.key(node, i)) {
        Place::Found(i)
    } else {
        Place::Before(i)
    }
}

unsafe fn first_entry(shape: &Shape, mut node: *mut Node) -> (*mut Node, usize) {
    while !(*node).leaf {
        node = shape.child(node, 0);
    }
    (node, 0)
}

/// The entry after entry `place` of `node`, if any.
unsafe fn next_entry(shape: &Shape, node: *mut Node, place: usize) -> Option<(*mut Node, usize)> {
    if !(*node).leaf {
        return Some(first_entry(shape, shape.child(node, place + 1)));
    }
    if place + 1 < (*node).len as usize {
        return Some((node, place + 1));
    }
    let mut child = node;
    loop {
        let parent = (*child).parent;
        if parent.is_null() {
            return None;
        }
        let at = (*child).place as usize;
        if at < (*parent).len as usize {
            return Some((parent, at));
        }
        child = parent;
    }
}

/// Entry `index` of the subtree at `node`, by the subtree sizes.
unsafe fn entry_by_index(
    shape: &Shape,
    mut node: *mut Node,
    mut index: usize,
) -> (*mut Node, usize) {
    loop {
        if (*node).leaf {
            return (node, index);
        }
        let len = (*node).len as usize;
        let mut next = None;
        for c in 0..=len {
            let child = shape.child(node, c);
            let size = (*child).size;
            if index < size {
                next = Some(child);
                break;
            }
            if index == size && c < len {
                return (node, c);
            }
            index -= size + 1;
        }
        node = next.expect("an index below the subtree's size");
    }
}

// ---- table entries ----

pub(crate) unsafe extern "C" fn map_len(rt: Rt, map: *const Map) -> usize {
    Runtime::from_handle(rt).map_len_of(&*map)
}

pub(crate) unsafe extern "C" fn map_insert(
    rt: Rt,
    map: *mut Map,
    map_td: Td,
    key: *mut c_void,
    value: *mut c_void,
) -> RtStatus {
    Runtime::from_handle(rt).map_insert_value(&mut *map, &*map_td, key.cast(), value.cast());
    STATUS_OK
}

pub(crate) unsafe extern "C" fn map_find(
    rt: Rt,
    map: *const Map,
    map_td: Td,
    key: *const c_void,
) -> *mut c_void {
    Runtime::from_handle(rt)
        .map_find_value(&*map, &*map_td, key.cast())
        .cast()
}

pub(crate) unsafe extern "C" fn map_remove(
    rt: Rt,
    map: *mut Map,
    map_td: Td,
    key: *const c_void,
    out: *mut c_void,
) -> RtStatus {
    let rt = Runtime::from_handle(rt);
    if rt.map_remove_value(&mut *map, &*map_td, key.cast(), out.cast()) {
        STATUS_OK
    } else {
        rt.refuse(STATUS_NOT_FOUND, KEY_NOT_FOUND_MESSAGE)
    }
}

pub(crate) unsafe extern "C" fn map_entry_at(
    rt: Rt,
    map: *const Map,
    map_td: Td,
    index: usize,
) -> *mut c_void {
    Runtime::from_handle(rt)
        .map_entry(&*map, &*map_td, index)
        .cast()
}
