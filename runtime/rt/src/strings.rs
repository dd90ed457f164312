//! Strings: UTF-8 bytes, length delimited (an interior NUL is an ordinary character),
//! in a counted buffer of `cap` bytes. The empty string owns nothing (null, 0, 0), and
//! neither does a string constant of compiled code: `cap` 0 with `len` bytes at `ptr` in
//! the program's own static data (`docs/abi.md`, strings), so a literal costs no
//! allocation. Dropping either frees nothing; growing either copies into a new buffer.
//! Bytes coming in are checked: anything that is not UTF-8 is refused with
//! `STATUS_INVALID_UTF8` and the message `invalid UTF-8 at byte N`.

use std::cmp::Ordering;

use datalove_rti::rtdt::List;
use datalove_rti::rtdt::String as RtString;
use datalove_rti::status::{
    RtStatus, STATUS_EMPTY, STATUS_INVALID_UTF8, STATUS_OK, STATUS_OUT_OF_BOUNDS,
};
use datalove_rti::table::Rt;

use crate::state::Runtime;
use crate::ErrorKind;

/// What `string_bytes` and `error_message` return for nothing: a non-null pointer at a
/// NUL byte, so C code may treat it as an empty C string too.
pub(crate) static EMPTY_BYTES: [u8; 1] = [0];

/// The message for bytes that are not UTF-8, or `None` when they are.
pub fn utf8_problem(bytes: &[u8]) -> Option<String> {
    std::str::from_utf8(bytes)
        .err()
        .map(|e| format!("invalid UTF-8 at byte {}", e.valid_up_to()))
}

/// A byte slice from a pointer that may be null when `len` is 0.
pub(crate) unsafe fn bytes_of<'a>(ptr: *const u8, len: usize) -> &'a [u8] {
    if len == 0 || ptr.is_null() {
        &[]
    } else {
        std::slice::from_raw_parts(ptr, len)
    }
}

impl Runtime {
    /// A new string holding `bytes`, which the caller vouches are UTF-8.
    pub(crate) fn string_from_utf8(&self, bytes: &[u8]) -> RtString {
        if bytes.is_empty() {
            return RtString::EMPTY;
        }
        let ptr = self.alloc(bytes.len(), 1);
        // SAFETY: `ptr` has room for `bytes`; the bytes are UTF-8 by the caller's word.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), ptr, bytes.len());
            RtString::from_raw_parts(ptr, bytes.len(), bytes.len())
        }
    }

    /// A new string holding `text`.
    pub fn new_string(&self, text: &str) -> RtString {
        self.string_from_utf8(text.as_bytes())
    }

    /// Frees a string's buffer.
    pub(crate) fn free_string(&self, s: RtString) {
        let (ptr, _, cap) = s.into_raw_parts();
        // SAFETY: a string's buffer is a counted allocation of `cap` bytes.
        unsafe { self.free(ptr, cap, 1) }
    }

    /// Frees a string made by this runtime.
    pub fn drop_string(&self, s: RtString) {
        self.free_string(s)
    }

    /// Room for `extra` more bytes in `s`'s buffer (grown by doubling; out of memory
    /// ends the program): its buffer and length, unchanged but for the capacity.
    #[inline]
    fn string_reserve(&self, s: &mut RtString, extra: usize) -> (*mut u8, usize) {
        let (ptr, len, cap) = s.raw_parts();
        match len.checked_add(extra) {
            Some(needed) if needed <= cap => (ptr, len),
            needed => self.string_grow(s, needed),
        }
    }

    /// [`Self::string_reserve`] when the buffer is too small (`needed` bytes, `None` past
    /// `usize`): a new buffer, twice the old at least.
    #[inline(never)]
    fn string_grow(&self, s: &mut RtString, needed: Option<usize>) -> (*mut u8, usize) {
        let (ptr, len, cap) = s.raw_parts();
        let Some(needed) = needed else {
            self.out_of_memory(usize::MAX);
        };
        let new_cap = needed.max(cap.saturating_mul(2)).max(16);
        let ptr = if cap == 0 {
            // Nothing owned: the empty string, or a constant's bytes (`docs/abi.md`,
            // strings), copied into the first buffer of its own.
            let fresh = self.alloc(new_cap, 1);
            if len > 0 {
                // SAFETY: `fresh` has room for `new_cap >= len` bytes; `ptr` holds `len`
                // (the empty string's `ptr` is null, and there is nothing to copy).
                unsafe { std::ptr::copy_nonoverlapping(ptr, fresh, len) };
            }
            fresh
        } else {
            // SAFETY: the buffer is a counted allocation of `cap` bytes.
            unsafe { self.realloc(ptr, cap, new_cap, 1) }
        };
        // SAFETY: `ptr` holds the `len` bytes of `s` and room for `new_cap`.
        unsafe { *s = RtString::from_raw_parts(ptr, len, new_cap) };
        (ptr, len)
    }

    /// Appends UTF-8 `bytes` in place, growing the buffer.
    pub(crate) fn string_append(&self, s: &mut RtString, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let (ptr, len) = self.string_reserve(s, bytes.len());
        let (_, _, cap) = s.raw_parts();
        // SAFETY: `ptr` has room for `len + bytes.len()` bytes; the result is UTF-8
        // since both parts are.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), ptr.add(len), bytes.len());
            *s = RtString::from_raw_parts(ptr, len + bytes.len(), cap);
        }
    }

    /// Appends `s` to itself in place (`s = concat s, s`): grown first, then its first
    /// half copied after it, so nothing is copied out of the buffer that moves.
    fn string_append_itself(&self, s: &mut RtString) {
        let (ptr, len) = self.string_reserve(s, s.len());
        let (_, _, cap) = s.raw_parts();
        // SAFETY: the buffer holds `len` bytes and room for `2 * len`; the halves do not
        // overlap.
        unsafe {
            std::ptr::copy_nonoverlapping(ptr, ptr.add(len), len);
            *s = RtString::from_raw_parts(ptr, 2 * len, cap);
        }
    }

    /// Sets the message and returns `status`: how every refusing entry ends.
    pub(crate) fn refuse(&self, status: RtStatus, message: impl AsRef<[u8]>) -> RtStatus {
        self.set_message(message);
        status
    }
}

// ---- table entries ----

pub(crate) unsafe extern "C" fn string_from_bytes(
    rt: Rt,
    bytes: *const u8,
    len: usize,
    out: *mut RtString,
) -> RtStatus {
    let rt = Runtime::from_handle(rt);
    let bytes = bytes_of(bytes, len);
    if let Some(problem) = utf8_problem(bytes) {
        return rt.refuse(STATUS_INVALID_UTF8, problem);
    }
    out.write(rt.string_from_utf8(bytes));
    STATUS_OK
}

pub(crate) unsafe extern "C" fn string_len(_rt: Rt, s: *const RtString) -> usize {
    (*s).len()
}

pub(crate) unsafe extern "C" fn string_bytes(
    _rt: Rt,
    s: *const RtString,
    out_len: *mut usize,
) -> *const u8 {
    let (ptr, len, _) = (*s).raw_parts();
    if !out_len.is_null() {
        *out_len = len;
    }
    if ptr.is_null() {
        EMPTY_BYTES.as_ptr()
    } else {
        ptr
    }
}

pub(crate) unsafe extern "C" fn string_push(
    rt: Rt,
    s: *mut RtString,
    bytes: *const u8,
    len: usize,
) -> RtStatus {
    let rt = Runtime::from_handle(rt);
    let bytes = bytes_of(bytes, len);
    if let Some(problem) = utf8_problem(bytes) {
        return rt.refuse(STATUS_INVALID_UTF8, problem);
    }
    rt.string_append(&mut *s, bytes);
    STATUS_OK
}

pub(crate) unsafe extern "C" fn string_concat(
    rt: Rt,
    a: *const RtString,
    b: *const RtString,
    out: *mut RtString,
) -> RtStatus {
    let rt = Runtime::from_handle(rt);
    if std::ptr::eq(a, out) {
        // Into its own left operand: an append in place (the IR's `s = concat s, t`),
        // amortized linear by doubling. `t` is `s` itself in `s = concat s, s`: grown
        // first, then copied within its own buffer, since growing may move it.
        let out = &mut *out;
        if std::ptr::eq(a, b) {
            rt.string_append_itself(out);
        } else {
            rt.string_append(out, (*b).as_bytes());
        }
        return STATUS_OK;
    }
    let (a, b) = ((*a).as_bytes(), (*b).as_bytes());
    let Some(len) = a.len().checked_add(b.len()) else {
        rt.out_of_memory(usize::MAX);
    };
    if len == 0 {
        out.write(RtString::EMPTY);
        return STATUS_OK;
    }
    // One buffer of the joined length, both parts copied in (UTF-8, since both are).
    let Some(ptr) = rt.try_alloc(len, 1) else {
        rt.out_of_memory(len);
    };
    std::ptr::copy_nonoverlapping(a.as_ptr(), ptr, a.len());
    std::ptr::copy_nonoverlapping(b.as_ptr(), ptr.add(a.len()), b.len());
    out.write(RtString::from_raw_parts(ptr, len, len));
    STATUS_OK
}

/// Why bytes `start..end` of `text` are not a slice of it, in the words of every slice
/// error: the `string_slice` entry's message (the std rider's `string_slice` fails with
/// it) and the error `string_part` raises (the IR's `str_slice`).
pub(crate) fn slice_problem(text: &[u8], start: usize, end: usize) -> Option<String> {
    if start > end {
        return Some(format!("slice {start}..{end} starts after it ends"));
    }
    if end > text.len() {
        return Some(format!(
            "slice {start}..{end} out of bounds for string of length {}",
            text.len()
        ));
    }
    // A UTF-8 continuation byte is `0b10xx_xxxx`: no character starts there.
    [start, end]
        .into_iter()
        .find(|&i| text.get(i).is_some_and(|&b| (b as i8) < -64))
        .map(|i| format!("slice {start}..{end}: byte {i} is not on a character boundary"))
}

pub(crate) unsafe extern "C" fn string_slice(
    rt: Rt,
    s: *const RtString,
    start: usize,
    end: usize,
    out: *mut RtString,
) -> RtStatus {
    let rt = Runtime::from_handle(rt);
    let bytes = (*s).as_bytes();
    if let Some(problem) = slice_problem(bytes, start, end) {
        return rt.refuse(STATUS_OUT_OF_BOUNDS, problem);
    }
    out.write(rt.string_from_utf8(&bytes[start..end]));
    STATUS_OK
}

pub(crate) unsafe extern "C" fn string_part(
    rt: Rt,
    s: *const RtString,
    start: usize,
    end: usize,
    view: u8,
    out: *mut RtString,
) -> RtStatus {
    let rt = Runtime::from_handle(rt);
    let bytes = (*s).as_bytes();
    if let Some(problem) = slice_problem(bytes, start, end) {
        rt.raise(ErrorKind::IndexOutOfBounds, problem);
        return STATUS_OUT_OF_BOUNDS;
    }
    let part = &bytes[start..end];
    out.write(if part.is_empty() {
        RtString::EMPTY
    } else if view != 0 {
        // Owns nothing (`cap` 0): `s` keeps the bytes, and the IR ends the view before
        // `s` changes (`docs/abi.md` §7.3).
        RtString::from_raw_parts(part.as_ptr().cast_mut(), part.len(), 0)
    } else {
        rt.string_from_utf8(part)
    });
    STATUS_OK
}

/// A new `[string]` of `pieces`, each a copy: the list is made at their number (the
/// pieces are cut twice, once to count them), so it grows never, and nothing is
/// checked (each piece is UTF-8 by the caller's word).
fn string_list<'a, I>(rt: &Runtime, pieces: I, own: Pieces) -> List
where
    I: Iterator<Item = &'a str> + Clone,
{
    let td = &datalove_rti::tydesc::STRING_TYDESC;
    let count = pieces.clone().count();
    let mut list = rt.new_list(td, count);
    for (i, piece) in pieces.enumerate() {
        // SAFETY: the list has room for `count` strings; `i < count` (the same pieces).
        unsafe {
            crate::lists::elem_ptr(&list, td, i)
                .cast::<RtString>()
                .write(own.piece(rt, piece.as_bytes()));
            let (ptr, _, cap) = list.raw_parts();
            list.set_raw_parts(ptr, i + 1, cap);
        }
    }
    list
}

/// Whether the pieces of a split are strings of their own (`string_split`) or heads
/// over the split string's bytes (`string_parts`).
#[derive(Clone, Copy)]
enum Pieces {
    Copied,
    Viewed,
}

impl Pieces {
    /// The piece `bytes` (UTF-8, within the split string) as this kind of string.
    #[inline]
    fn piece(self, rt: &Runtime, bytes: &[u8]) -> RtString {
        match self {
            Pieces::Copied => rt.string_from_utf8(bytes),
            Pieces::Viewed if bytes.is_empty() => RtString::EMPTY,
            // SAFETY: owns nothing (`cap` 0); the IR reads it only while the split
            // string keeps these bytes (`str_parts`).
            Pieces::Viewed => unsafe {
                RtString::from_raw_parts(bytes.as_ptr().cast_mut(), bytes.len(), 0)
            },
        }
    }
}

/// A new `[string]` of the pieces of `s` between the bytes `byte` (ASCII: a piece is
/// then UTF-8): counted first (a loop the compiler vectorizes), so the list is made at
/// its length, then each found eight bytes at a time ([`find_byte`]): pieces as short
/// as words cost little more than their copy, where a memchr call's start-up would
/// cost more than the search.
fn string_list_by_byte(rt: &Runtime, s: &str, byte: u8, own: Pieces) -> List {
    let td = &datalove_rti::tydesc::STRING_TYDESC;
    let bytes = s.as_bytes();
    let count = count_byte(bytes, byte) + 1;
    let mut list = rt.new_list(td, count);
    let mut start = 0;
    for i in 0..count {
        let end = if i + 1 == count {
            bytes.len()
        } else {
            start + find_byte(&bytes[start..], byte).expect("counted")
        };
        // SAFETY: the list has room for `count` strings and `i < count`; the piece is
        // UTF-8, cut at an ASCII byte of UTF-8.
        unsafe {
            crate::lists::elem_ptr(&list, td, i)
                .cast::<RtString>()
                .write(own.piece(rt, &bytes[start..end]));
            let (ptr, _, cap) = list.raw_parts();
            list.set_raw_parts(ptr, i + 1, cap);
        }
        start = end + 1;
    }
    list
}

/// How many `byte`s `hay` holds, eight bytes at a time: in a word XOR eight copies of
/// `byte`, `!((w & 0x7f..7f) + 0x7f..7f | w) & 0x80..80` marks exactly the zero bytes
/// (no carry crosses a byte); shifted down, each byte of the mark is 0 or 1, summed
/// bytewise over up to 255 words, then across the word (in pairs, then by one
/// multiplication).
fn count_byte(hay: &[u8], byte: u8) -> usize {
    const LOWS: u64 = u64::from_ne_bytes([0x7f; 8]);
    const LANES: u64 = 0x00ff_00ff_00ff_00ff;
    const PAIR_ONES: u64 = 0x0001_0001_0001_0001;
    let pattern = u64::from_ne_bytes([byte; 8]);
    let mut count = 0;
    let mut words = hay.chunks_exact(8);
    loop {
        let mut sums = 0u64;
        let mut taken = 0;
        for chunk in words.by_ref().take(255) {
            let w = u64::from_ne_bytes(chunk.try_into().expect("eight bytes")) ^ pattern;
            sums += (!(((w & LOWS) + LOWS) | w) & !LOWS) >> 7;
            taken += 1;
        }
        // Lanes of 16 bits (each at most 510), then their sum in the top 16.
        let pairs = (sums & LANES) + ((sums >> 8) & LANES);
        count += (pairs.wrapping_mul(PAIR_ONES) >> 48) as usize;
        if taken < 255 {
            break;
        }
    }
    count + words.remainder().iter().filter(|&&b| b == byte).count()
}

/// Where the first `byte` of `hay` is, eight bytes at a time: a word XOR eight copies
/// of `byte` has a zero byte exactly where `byte` is, and `(w - 0x01..01) & !w &
/// 0x80..80` marks the lowest zero byte exactly (a borrow can mark bytes above it only).
fn find_byte(hay: &[u8], byte: u8) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    let pattern = u64::from_ne_bytes([byte; 8]);
    let mut words = hay.chunks_exact(8);
    let mut at = 0;
    for chunk in &mut words {
        let w = u64::from_le_bytes(chunk.try_into().expect("eight bytes")) ^ pattern;
        let zeros = w.wrapping_sub(ONES) & !w & HIGHS;
        if zeros != 0 {
            return Some(at + (zeros.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    let rest = words.remainder();
    rest.iter().position(|&b| b == byte).map(|i| at + i)
}

/// The pieces of `s` by `sep` (`None`: by whitespace) as `own` says; `None` for an
/// empty separator.
fn split_list(rt: &Runtime, s: &str, sep: Option<&str>, own: Pieces) -> Option<List> {
    Some(match sep {
        None => string_list(rt, s.split_whitespace(), own),
        Some("") => return None,
        // One byte (ASCII, in UTF-8): counted, then found eight bytes at a time.
        Some(sep) if sep.len() == 1 => string_list_by_byte(rt, s, sep.as_bytes()[0], own),
        Some(sep) => string_list(rt, s.split(sep), own),
    })
}

pub(crate) unsafe extern "C" fn string_split(
    rt: Rt,
    s: *const RtString,
    sep: *const RtString,
    out: *mut List,
) -> RtStatus {
    let rt = Runtime::from_handle(rt);
    let sep = sep.as_ref().map(|sep| sep.as_str());
    match split_list(rt, (*s).as_str(), sep, Pieces::Copied) {
        Some(list) => {
            out.write(list);
            STATUS_OK
        }
        None => rt.refuse(STATUS_EMPTY, "the separator is empty"),
    }
}

pub(crate) unsafe extern "C" fn string_parts(
    rt: Rt,
    s: *const RtString,
    sep: *const RtString,
    out: *mut List,
) {
    let rt = Runtime::from_handle(rt);
    let s = (*s).as_str();
    let sep = sep.as_ref().map(|sep| sep.as_str());
    let list = match split_list(rt, s, sep, Pieces::Viewed) {
        Some(list) => list,
        None => string_list(rt, std::iter::once(s), Pieces::Viewed),
    };
    out.write(list);
}

pub(crate) unsafe extern "C" fn string_eq(_rt: Rt, a: *const RtString, b: *const RtString) -> u8 {
    ((*a).as_bytes() == (*b).as_bytes()) as u8
}

pub(crate) fn ordering_i32(o: Ordering) -> i32 {
    match o {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    }
}

pub(crate) unsafe extern "C" fn string_cmp(_rt: Rt, a: *const RtString, b: *const RtString) -> i32 {
    ordering_i32((*a).as_bytes().cmp((*b).as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::{count_byte, find_byte};

    /// Texts with the byte nowhere, everywhere (past 255 words of it, where the
    /// bytewise sums are folded), at each offset of a word, and in the tail.
    fn texts() -> Vec<Vec<u8>> {
        let mut texts = vec![Vec::new(), vec![b'\n'; 5000], b"no newline at all".to_vec()];
        for len in 0..40 {
            for at in 0..len {
                let mut t = vec![b'a'; len];
                t[at] = b'\n';
                texts.push(t);
            }
        }
        let mut seed = 42u64;
        texts.push(
            (0..20_000)
                .map(|_| {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                    if (seed >> 33).is_multiple_of(3) {
                        b'\n'
                    } else {
                        0x80 | (seed >> 40) as u8
                    }
                })
                .collect(),
        );
        texts
    }

    #[test]
    fn count_byte_counts_as_a_plain_loop_does() {
        for t in texts() {
            for byte in [b'\n', b'a', 0x80, 0xff, 0] {
                let expected = t.iter().filter(|&&b| b == byte).count();
                assert_eq!(count_byte(&t, byte), expected, "{} bytes, {byte}", t.len());
            }
        }
    }

    #[test]
    fn find_byte_finds_the_first() {
        for t in texts() {
            for byte in [b'\n', b'a', 0x80] {
                assert_eq!(find_byte(&t, byte), t.iter().position(|&b| b == byte));
            }
        }
    }
}
