//! Descriptors: a static data object per concrete type (children first, `TyField` arrays,
//! relocated pointers), byte-for-byte the interpreter's `OwnedTyDesc`; and, in generic
//! functions, the descriptor table built on entry from the type-parameter descriptors
//! with `tydesc_list/option/tuple`.

use std::collections::HashMap;
use std::mem::offset_of;

use cranelift_codegen::ir::{InstBuilder, StackSlotData, StackSlotKind, Value};
use cranelift_module::{DataDescription, DataId, Module, ModuleError};

/// Module errors as text: a refused data object is a lowering bug, reported by the caller.
fn text(e: ModuleError) -> String {
    e.to_string()
}
use datalove_ir::lowering::{DescPlan, DescSource, GenericDesc, NativeLinks};
use datalove_ir::{IrType, Program};
use datalove_rti::tydesc::TYDESC_COPY;
use datalove_rti::{TyDesc, TyField};

use crate::lower::{trusted, Fx};
use crate::runtime::Entry;

/// Data objects shared by every function of a module: descriptors, byte strings and,
/// in an executable, the native slots.
#[derive(Default)]
pub struct Statics {
    descs: HashMap<IrType, DataId>,
    bytes: HashMap<Vec<u8>, DataId>,
    pub native_slots: Option<NativeSlots>,
}

/// An executable's natives (`datalove_ir::lowering::NativeLinks`): the rider manifest as
/// read-only bytes and one writable pointer-sized slot per native symbol, zeroed until
/// `dtlv_rt_run_linked` fills them at start.
pub struct NativeSlots {
    pub links: NativeLinks,
    pub manifest: DataId,
    pub slots: DataId,
}

impl NativeSlots {
    pub fn define<M: Module>(module: &mut M, program: &Program) -> Result<NativeSlots, String> {
        let links = NativeLinks::of(program);
        let manifest = module.declare_anonymous_data(false, false).map_err(text)?;
        let mut data = DataDescription::new();
        data.define(links.manifest().encode().into_boxed_slice());
        module.define_data(manifest, &data).map_err(text)?;
        let slots = module.declare_anonymous_data(true, false).map_err(text)?;
        let mut data = DataDescription::new();
        data.set_align(8);
        let pointer_bytes = module.target_config().pointer_bytes() as usize;
        data.define_zeroinit(links.slot_count().max(1) * pointer_bytes);
        module.define_data(slots, &data).map_err(text)?;
        Ok(NativeSlots {
            links,
            manifest,
            slots,
        })
    }
}

pub const DESC_SIZE: usize = std::mem::size_of::<TyDesc>();
pub const OFF_SIZE: i32 = offset_of!(TyDesc, size) as i32;
pub const OFF_ALIGN: i32 = offset_of!(TyDesc, align) as i32;
pub const OFF_PAYLOAD: i32 = offset_of!(TyDesc, payload_offset) as i32;
pub const OFF_FIELDS: i32 = offset_of!(TyDesc, fields) as i32;
pub const FIELD_SIZE: i32 = std::mem::size_of::<TyField>() as i32;
pub const FIELD_OFF_DESC: i32 = offset_of!(TyField, desc) as i32;
pub const FIELD_OFF_OFFSET: i32 = offset_of!(TyField, offset) as i32;

fn put(bytes: &mut [u8], at: usize, value: u64, width: usize) {
    bytes[at..at + width].copy_from_slice(&value.to_le_bytes()[..width]);
}

impl Statics {
    /// The data object of `bytes` (at least one byte long, so that it has an address).
    pub fn bytes<M: Module>(&mut self, module: &mut M, bytes: &[u8]) -> Result<DataId, String> {
        if let Some(id) = self.bytes.get(bytes) {
            return Ok(*id);
        }
        let id = module.declare_anonymous_data(false, false).map_err(text)?;
        let mut data = DataDescription::new();
        let mut contents = bytes.to_vec();
        if contents.is_empty() {
            contents.push(0);
        }
        data.define(contents.into_boxed_slice());
        module.define_data(id, &data).map_err(text)?;
        self.bytes.insert(bytes.to_vec(), id);
        Ok(id)
    }

    /// A `TyField` array for `fields` at `offsets`.
    fn fields<M: Module>(
        &mut self,
        module: &mut M,
        fields: &[IrType],
        offsets: &[usize],
    ) -> Result<DataId, String> {
        let fields_id = module.declare_anonymous_data(false, false).map_err(text)?;
        let mut fields_data = DataDescription::new();
        fields_data.set_align(8);
        let mut field_bytes = vec![0u8; fields.len() * FIELD_SIZE as usize];
        for (i, (field, offset)) in fields.iter().zip(offsets).enumerate() {
            let field_id = self.desc(module, field)?;
            let gv = module.declare_data_in_data(field_id, &mut fields_data);
            let at = i * FIELD_SIZE as usize;
            fields_data.write_data_addr((at + FIELD_OFF_DESC as usize) as u32, gv, 0);
            put(
                &mut field_bytes,
                at + FIELD_OFF_OFFSET as usize,
                *offset as u64,
                8,
            );
        }
        fields_data.define(field_bytes.into_boxed_slice());
        module.define_data(fields_id, &fields_data).map_err(text)?;
        Ok(fields_id)
    }

    /// The static descriptor of the concrete type `ty`.
    pub fn desc<M: Module>(&mut self, module: &mut M, ty: &IrType) -> Result<DataId, String> {
        assert!(!ty.mentions_param(), "a static descriptor for {ty}");
        if let Some(id) = self.descs.get(ty) {
            return Ok(*id);
        }
        let kind = ty.kind().expect("a concrete type has a kind");
        let (layout, offsets) = ty
            .layout_with_offsets()
            .expect("a concrete type has a layout");
        let mut bytes = vec![0u8; DESC_SIZE];
        let mut data = DataDescription::new();
        data.set_align(8);
        put(&mut bytes, offset_of!(TyDesc, kind), kind as u64, 4);
        put(&mut bytes, offset_of!(TyDesc, size), layout.size as u64, 8);
        put(
            &mut bytes,
            offset_of!(TyDesc, align),
            layout.align as u64,
            8,
        );
        let copy = if ty.is_copy() { TYDESC_COPY } else { 0 };
        put(&mut bytes, offset_of!(TyDesc, flags), copy as u64, 4);
        match ty {
            IrType::List(child) | IrType::Option(child) => {
                let child_id = self.desc(module, child)?;
                let gv = module.declare_data_in_data(child_id, &mut data);
                data.write_data_addr(offset_of!(TyDesc, elem) as u32, gv, 0);
                if let IrType::Option(_) = ty {
                    put(
                        &mut bytes,
                        offset_of!(TyDesc, payload_offset),
                        offsets[0] as u64,
                        8,
                    );
                }
            }
            IrType::Tuple(_) | IrType::Record(_) if ty.fields().is_some_and(|f| !f.is_empty()) => {
                let fields = ty.fields().expect("a tuple or record has fields");
                let fields_id = self.fields(module, fields, &offsets)?;
                put(
                    &mut bytes,
                    offset_of!(TyDesc, field_count),
                    fields.len() as u64,
                    8,
                );
                let gv = module.declare_data_in_data(fields_id, &mut data);
                data.write_data_addr(OFF_FIELDS as u32, gv, 0);
            }
            IrType::Enum(e) if e.variant_count() > 0 => {
                // One field per variant: its payload tuple at the shared payload offset.
                let payloads: Vec<IrType> = (0..e.variant_count()).map(|v| e.payload(v)).collect();
                let fields_id = self.fields(module, &payloads, &offsets)?;
                put(
                    &mut bytes,
                    offset_of!(TyDesc, field_count),
                    payloads.len() as u64,
                    8,
                );
                put(
                    &mut bytes,
                    offset_of!(TyDesc, payload_offset),
                    offsets[0] as u64,
                    8,
                );
                let gv = module.declare_data_in_data(fields_id, &mut data);
                data.write_data_addr(OFF_FIELDS as u32, gv, 0);
            }
            IrType::Map(key, value) => {
                // `elem` is the entry tuple; the map's fields are the key and the value.
                let entry = IrType::map_entry(key, value);
                let (_, entry_offsets) = entry.layout_with_offsets().expect("a concrete entry");
                let entry_id = self.desc(module, &entry)?;
                let gv = module.declare_data_in_data(entry_id, &mut data);
                data.write_data_addr(offset_of!(TyDesc, elem) as u32, gv, 0);
                let parts = [(**key).clone(), (**value).clone()];
                let fields_id = self.fields(module, &parts, &entry_offsets)?;
                put(&mut bytes, offset_of!(TyDesc, field_count), 2, 8);
                let gv = module.declare_data_in_data(fields_id, &mut data);
                data.write_data_addr(OFF_FIELDS as u32, gv, 0);
            }
            _ => {}
        }
        if let Some(names) = ty.descriptor_names() {
            let names_id = self.bytes(module, &names)?;
            let gv = module.declare_data_in_data(names_id, &mut data);
            data.write_data_addr(offset_of!(TyDesc, names) as u32, gv, 0);
        }
        data.define(bytes.into_boxed_slice());
        let id = module.declare_anonymous_data(false, false).map_err(text)?;
        module.define_data(id, &data).map_err(text)?;
        self.descs.insert(ty.clone(), id);
        Ok(id)
    }
}

impl<M: Module> Fx<'_, '_, M> {
    /// The address of data object `id`.
    pub fn data_addr(&mut self, id: DataId) -> Value {
        let gv = match self.data_gvs.get(&id) {
            Some(gv) => *gv,
            None => {
                let gv = self.module.declare_data_in_func(id, self.b.func);
                self.data_gvs.insert(id, gv);
                gv
            }
        };
        self.b.ins().symbol_value(self.ptr, gv)
    }

    /// The address of a byte string in the module, and its length.
    pub fn bytes_addr(&mut self, bytes: &[u8]) -> (Value, Value) {
        let id = self
            .statics
            .bytes(self.module, bytes)
            .unwrap_or_else(|e| panic!("a byte string for `{}`: {e}", self.func.name));
        let addr = self.data_addr(id);
        let len = self.iconst_ptr(bytes.len() as i64);
        (addr, len)
    }

    /// The descriptor of `ty` (in the function's terms).
    pub fn desc(&mut self, ty: &IrType) -> Value {
        if let IrType::Param(n) = ty {
            return self.tparams[*n as usize];
        }
        if ty.mentions_param() {
            return self
                .generic_descs
                .iter()
                .find(|(t, _)| t == ty)
                .map(|(_, v)| *v)
                .unwrap_or_else(|| panic!("`{}` has no table entry for {ty}", self.func.name));
        }
        let id = self
            .statics
            .desc(self.module, ty)
            .unwrap_or_else(|e| panic!("the descriptor of {ty} in `{}`: {e}", self.func.name));
        self.data_addr(id)
    }

    /// Fills the descriptor table on entry, as the function's one plan
    /// (`datalove_ir::lowering::DescPlan`) says.
    pub fn build_generic_descs(&mut self) {
        let plan = DescPlan::of(self.func);
        for (ty, entry) in plan.generic {
            let rt = self.rt;
            let value = match &entry {
                GenericDesc::List(e) => {
                    let e = self.source_desc(e);
                    self.call_rt(Entry::TydescList, &[rt, e])
                }
                GenericDesc::Option(p) => {
                    let p = self.source_desc(p);
                    self.call_rt(Entry::TydescOption, &[rt, p])
                }
                GenericDesc::Tuple(fields) => {
                    let (array, count) = self.desc_array(fields);
                    self.call_rt(Entry::TydescTuple, &[rt, array, count])
                }
                GenericDesc::Enum(names, payloads) => {
                    let (array, count) = self.desc_array(payloads);
                    let (names, len) = self.bytes_addr(names);
                    self.call_rt(Entry::TydescEnum, &[rt, names, len, array, count])
                }
                GenericDesc::Map(k, v) => {
                    let k = self.source_desc(k);
                    let v = self.source_desc(v);
                    self.call_rt(Entry::TydescMap, &[rt, k, v])
                }
            }
            .expect("tydesc entries return a descriptor");
            self.generic_descs.push((ty, value));
        }
    }

    /// The descriptor a plan's source names.
    /// The descriptors of `sources` in an array on the stack, and their count.
    fn desc_array(&mut self, sources: &[DescSource]) -> (Value, Value) {
        let n = sources.len();
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            (8 * n.max(1)) as u32,
            3,
        ));
        let array = self.b.ins().stack_addr(self.ptr, slot, 0);
        for (i, source) in sources.iter().enumerate() {
            let d = self.source_desc(source);
            self.b.ins().store(trusted(), d, array, (8 * i) as i32);
        }
        (array, self.iconst_ptr(n as i64))
    }

    fn source_desc(&mut self, source: &DescSource) -> Value {
        match source {
            DescSource::Static(ty) => self.desc(ty),
            DescSource::TypeParam(n) => self.tparams[*n as usize],
            DescSource::Generic(i) => self.generic_descs[*i].1,
        }
    }

    /// `desc->size` of a descriptor at run time.
    pub fn desc_size(&mut self, desc: Value) -> Value {
        self.b.ins().load(self.ptr, trusted(), desc, OFF_SIZE)
    }

    pub fn desc_align(&mut self, desc: Value) -> Value {
        self.b.ins().load(self.ptr, trusted(), desc, OFF_ALIGN)
    }
}
