//! IR types, parameter modes and the type classes of type parameters.

use std::fmt;

use datalove_rti::layout::{compute_layout, Layout};
use datalove_rti::TyKind;

/// A type in the IR. `Param(n)` is the `n`th type parameter of the function (or native)
/// the type is written in; its size is known only at run time, from the descriptor the
/// caller passes.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IrType {
    Unit,
    Bool,
    U8,
    U16,
    U32,
    U64,
    I8,
    I16,
    I32,
    I64,
    F32,
    F64,
    Index,
    String,
    List(Box<IrType>),
    Option(Box<IrType>),
    Tuple(Vec<IrType>),
    Data,
    Param(u32),
    /// `map[K, V]`: a runtime-owned handle; entries in the runtime's order of keys.
    Map(Box<IrType>, Box<IrType>),
    /// An arbitrary-precision integer (`rtdt::BigInt`); owned, not copy.
    BigInt,
    /// A record: a product type with named fields, declared once and referred to by
    /// name. It is laid out, built, read, written, cloned, dropped and compared as the
    /// tuple of its fields (every place that handles a tuple reaches the fields through
    /// [`IrType::fields`]); its descriptor also carries the names, for formatting. Its
    /// fields are concrete: a record mentions no type parameter.
    Record(Box<RecordType>),
    /// An enum: a tagged union of variants, each with a payload of zero or more fields,
    /// declared once and referred to by name. A `u32` tag (the variant's index) sits at
    /// offset 0 and every payload, laid out as the tuple of its fields, at one shared
    /// offset (`compute_layout`). A generic enum's instance (`result[T, string]`) has its
    /// type arguments substituted into its payloads; one that mentions a type parameter
    /// is laid out at run time, from the descriptor generic code builds
    /// (`tydesc_enum`), like a tuple of `T`.
    Enum(Box<EnumType>),
}

/// The declaration of an enum type: its name and its variants, in order.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EnumType {
    /// The declared name (`result`), also the descriptor's: instances share it.
    pub name: String,
    /// A generic enum's type arguments (`[i64, string]` in `result[i64, string]`), empty
    /// for an enum without type parameters.
    pub args: Vec<IrType>,
    pub variant_names: Vec<String>,
    /// Each variant's payload fields (empty for a variant without payload) as declared:
    /// in a generic enum, in terms of the enum's own type parameters (`Param(i)` stands
    /// for `args[i]`); read them through [`EnumType::variant_fields`], which puts the
    /// arguments in. The arguments are not substituted in here, so a type nested in
    /// itself (`box[box[box[u8]]]`) is as large as it is written: substituted payloads
    /// would hold each argument twice (in `args` and in a payload), and the type would
    /// double with each level of nesting.
    pub declared_variants: Vec<Vec<IrType>>,
}

impl EnumType {
    /// The index of the variant called `name`.
    pub fn variant_index(&self, name: &str) -> Option<usize> {
        self.variant_names.iter().position(|n| n == name)
    }

    /// How many variants there are.
    pub fn variant_count(&self) -> usize {
        self.declared_variants.len()
    }

    /// Variant `variant`'s payload fields, with the type arguments put in.
    pub fn variant_fields(&self, variant: usize) -> Vec<IrType> {
        let declared = &self.declared_variants[variant];
        if self.args.is_empty() {
            declared.clone()
        } else {
            declared.iter().map(|f| f.substitute(&self.args)).collect()
        }
    }

    /// Every variant's payload fields, with the type arguments put in.
    pub fn all_variant_fields(&self) -> Vec<Vec<IrType>> {
        (0..self.variant_count())
            .map(|v| self.variant_fields(v))
            .collect()
    }

    /// A variant's payload as the tuple it is laid out as.
    pub fn payload(&self, variant: usize) -> IrType {
        IrType::Tuple(self.variant_fields(variant))
    }
}

/// The declaration of a record type: its name and its fields, in order.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RecordType {
    pub name: String,
    pub field_names: Vec<String>,
    pub fields: Vec<IrType>,
}

impl RecordType {
    /// The position of the field called `name`.
    pub fn field_index(&self, name: &str) -> Option<usize> {
        self.field_names.iter().position(|n| n == name)
    }
}

impl IrType {
    pub fn list(elem: IrType) -> IrType {
        IrType::List(Box::new(elem))
    }

    /// What `list_get` reads out of a value of this type, by index: a list's element, or
    /// a string's byte (`u8`: a string's bytes are read as a list of `u8` is, never
    /// written, so the text stays UTF-8). `None` for a type with no indexed elements. The
    /// verifier, the bounds pass and the ranges pass all ask here.
    pub fn indexed_element(&self) -> Option<&IrType> {
        static BYTE: IrType = IrType::U8;
        match self {
            IrType::List(elem) => Some(elem),
            IrType::String => Some(&BYTE),
            _ => None,
        }
    }

    pub fn option(payload: IrType) -> IrType {
        IrType::Option(Box::new(payload))
    }

    pub fn enumeration(e: EnumType) -> IrType {
        IrType::Enum(Box::new(e))
    }

    /// The `names` of the type's descriptor: a record's name and field names, or an
    /// enum's name and variant names, each followed by a NUL byte; `None` for any other
    /// type. Every backend's static descriptors carry these bytes.
    pub fn descriptor_names(&self) -> Option<Vec<u8>> {
        let (name, parts) = match self {
            IrType::Record(r) => (&r.name, &r.field_names),
            IrType::Enum(e) => (&e.name, &e.variant_names),
            _ => return None,
        };
        let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
        Some(datalove_rti::tydesc::record_names_bytes(name, &parts))
    }

    /// Where each payload field of variant `variant` of an enum sits, from the start of
    /// the enum: the shared payload offset plus the field's offset in the payload's
    /// tuple. Every backend builds and takes variants inline at these offsets.
    pub fn variant_field_offsets(&self, variant: usize) -> Option<Vec<usize>> {
        let IrType::Enum(e) = self else { return None };
        let (_, offsets) = self.layout_with_offsets()?;
        let (_, fields) = e.payload(variant).layout_with_offsets()?;
        Some(fields.iter().map(|f| offsets[variant] + f).collect())
    }

    pub fn record(record: RecordType) -> IrType {
        IrType::Record(Box::new(record))
    }

    /// The fields of a tuple or a record, which share one layout and every operation on
    /// fields; `None` for any other type.
    pub fn fields(&self) -> Option<&[IrType]> {
        match self {
            IrType::Tuple(fields) => Some(fields),
            IrType::Record(record) => Some(&record.fields),
            _ => None,
        }
    }

    pub fn map(key: IrType, value: IrType) -> IrType {
        IrType::Map(Box::new(key), Box::new(value))
    }

    /// A map's entry tuple `(K, V)`: what its descriptor's `elem` describes, and the
    /// element type of `maps.entries`.
    pub fn map_entry(key: &IrType, value: &IrType) -> IrType {
        IrType::Tuple(vec![key.clone(), value.clone()])
    }

    /// The descriptor kind, or `None` for a type parameter.
    pub fn kind(&self) -> Option<TyKind> {
        Some(match self {
            IrType::Unit => TyKind::Unit,
            IrType::Bool => TyKind::Bool,
            IrType::U8 => TyKind::U8,
            IrType::U16 => TyKind::U16,
            IrType::U32 => TyKind::U32,
            IrType::U64 => TyKind::U64,
            IrType::I8 => TyKind::I8,
            IrType::I16 => TyKind::I16,
            IrType::I32 => TyKind::I32,
            IrType::I64 => TyKind::I64,
            IrType::F32 => TyKind::F32,
            IrType::F64 => TyKind::F64,
            IrType::Index => TyKind::Index,
            IrType::String => TyKind::String,
            IrType::List(_) => TyKind::List,
            IrType::Option(_) => TyKind::Option,
            IrType::Tuple(_) => TyKind::Tuple,
            IrType::Data => TyKind::Data,
            IrType::Record(_) => TyKind::Record,
            IrType::Enum(_) => TyKind::Enum,
            IrType::Map(..) => TyKind::Map,
            IrType::Param(_) => return None,
            IrType::BigInt => TyKind::BigInt,
        })
    }

    /// The scalar type of a kind.
    pub fn from_scalar_kind(kind: TyKind) -> Option<IrType> {
        Some(match kind {
            TyKind::Unit => IrType::Unit,
            TyKind::Bool => IrType::Bool,
            TyKind::U8 => IrType::U8,
            TyKind::U16 => IrType::U16,
            TyKind::U32 => IrType::U32,
            TyKind::U64 => IrType::U64,
            TyKind::I8 => IrType::I8,
            TyKind::I16 => IrType::I16,
            TyKind::I32 => IrType::I32,
            TyKind::I64 => IrType::I64,
            TyKind::F32 => IrType::F32,
            TyKind::F64 => IrType::F64,
            TyKind::Index => IrType::Index,
            TyKind::String => IrType::String,
            TyKind::Data => IrType::Data,
            TyKind::BigInt => IrType::BigInt,
            _ => return None,
        })
    }

    /// The built-in type a name spells (`u8`, `string`, `data`, ...), if any: the one
    /// spelling the `.dli` parser and the front end share.
    pub fn from_name(name: &str) -> Option<IrType> {
        Some(match name {
            "unit" => IrType::Unit,
            "bool" => IrType::Bool,
            "u8" => IrType::U8,
            "u16" => IrType::U16,
            "u32" => IrType::U32,
            "u64" => IrType::U64,
            "i8" => IrType::I8,
            "i16" => IrType::I16,
            "i32" => IrType::I32,
            "i64" => IrType::I64,
            "f32" => IrType::F32,
            "f64" => IrType::F64,
            "index" => IrType::Index,
            "string" => IrType::String,
            "data" => IrType::Data,
            "bigint" => IrType::BigInt,
            _ => return None,
        })
    }

    /// Whether an integer constant fits the type (false for a type that is not an
    /// integer).
    pub fn int_fits(&self, value: i128) -> bool {
        self.kind()
            .and_then(TyKind::int_range)
            .is_some_and(|(lo, hi)| (lo..=hi).contains(&value))
    }

    pub fn is_scalar(&self) -> bool {
        self.kind().is_some_and(|k| k.is_scalar())
    }

    pub fn is_integer(&self) -> bool {
        self.kind().is_some_and(|k| k.is_integer())
    }

    pub fn is_signed(&self) -> bool {
        self.kind().is_some_and(|k| k.is_signed())
    }

    pub fn is_float(&self) -> bool {
        self.kind().is_some_and(|k| k.is_float())
    }

    /// Whether values of the type are plain bytes (copied, never dropped). A type that
    /// mentions a type parameter is not known to be copy: code treats it as owned, and
    /// the runtime copies it when its descriptor says copy.
    pub fn is_copy(&self) -> bool {
        match self {
            IrType::String
            | IrType::List(_)
            | IrType::Data
            | IrType::Param(_)
            | IrType::BigInt
            | IrType::Map(..) => false,
            IrType::Option(p) => p.is_copy(),
            IrType::Tuple(fields) => fields.iter().all(IrType::is_copy),
            IrType::Record(record) => record.fields.iter().all(IrType::is_copy),
            IrType::Enum(e) => e.all_variant_fields().iter().flatten().all(IrType::is_copy),
            _ => true,
        }
    }

    /// Whether the type mentions a type parameter anywhere.
    pub fn mentions_param(&self) -> bool {
        match self {
            IrType::Param(_) => true,
            IrType::List(e) | IrType::Option(e) => e.mentions_param(),
            IrType::Tuple(fields) => fields.iter().any(IrType::mentions_param),
            IrType::Map(k, v) => k.mentions_param() || v.mentions_param(),
            // Its payloads mention the enum's own parameters, which its arguments bind.
            IrType::Enum(e) => e.args.iter().any(IrType::mentions_param),
            _ => false,
        }
    }

    /// Every type parameter mentioned, in order of first mention.
    pub fn collect_params(&self, out: &mut Vec<u32>) {
        match self {
            IrType::Param(n) if !out.contains(n) => out.push(*n),
            IrType::Param(_) => {}
            IrType::List(e) | IrType::Option(e) => e.collect_params(out),
            IrType::Tuple(fields) => fields.iter().for_each(|f| f.collect_params(out)),
            IrType::Map(k, v) => {
                k.collect_params(out);
                v.collect_params(out);
            }
            IrType::Enum(e) => e.args.iter().for_each(|a| a.collect_params(out)),
            _ => {}
        }
    }

    /// Replaces `Param(n)` with `args[n]`.
    pub fn substitute(&self, args: &[IrType]) -> IrType {
        match self {
            IrType::Param(n) => args[*n as usize].clone(),
            _ => self.map_children(|t| t.substitute(args)),
        }
    }

    /// The type rebuilt with `f` applied to each type it is made of: a list's or an
    /// option's element, a tuple's fields, a map's key and value, an enum's type
    /// arguments (its declared payloads are in its own parameters' terms, which the
    /// arguments bind). Any other type is cloned.
    pub fn map_children(&self, mut f: impl FnMut(&IrType) -> IrType) -> IrType {
        match self {
            IrType::List(e) => IrType::list(f(e)),
            IrType::Option(e) => IrType::option(f(e)),
            IrType::Tuple(fields) => IrType::Tuple(fields.iter().map(f).collect()),
            IrType::Map(k, v) => IrType::map(f(k), f(v)),
            IrType::Enum(e) => IrType::enumeration(EnumType {
                name: e.name.clone(),
                args: e.args.iter().map(&mut f).collect(),
                variant_names: e.variant_names.clone(),
                declared_variants: e.declared_variants.clone(),
            }),
            other => other.clone(),
        }
    }

    /// Size and alignment, from the one layout function; `None` for a type that mentions
    /// a type parameter.
    pub fn layout(&self) -> Option<Layout> {
        Some(self.layout_with_offsets()?.0)
    }

    /// Layout plus the offsets of the option payload (one), tuple fields (one each) or
    /// enum payloads (one per variant, all the same).
    pub fn layout_with_offsets(&self) -> Option<(Layout, Vec<usize>)> {
        let kind = self.kind()?;
        match self {
            IrType::Option(p) => {
                let mut offsets = vec![0];
                let l = compute_layout(kind, &[p.layout()?], &mut offsets);
                Some((l.layout, offsets))
            }
            IrType::Tuple(_) | IrType::Record(_) => {
                let fields = self.fields().expect("a tuple or record has fields");
                let layouts = fields
                    .iter()
                    .map(IrType::layout)
                    .collect::<Option<Vec<_>>>()?;
                let mut offsets = vec![0; layouts.len()];
                let l = compute_layout(kind, &layouts, &mut offsets);
                Some((l.layout, offsets))
            }
            IrType::Enum(e) => {
                let layouts = (0..e.variant_count())
                    .map(|v| e.payload(v).layout())
                    .collect::<Option<Vec<_>>>()?;
                let mut offsets = vec![0; layouts.len()];
                let l = compute_layout(kind, &layouts, &mut offsets);
                Some((l.layout, offsets))
            }
            IrType::List(e) => {
                // The element's layout does not change the list head, but it must exist.
                let elem = if e.mentions_param() { None } else { e.layout() };
                elem?;
                Some((compute_layout(kind, &[], &mut []).layout, Vec::new()))
            }
            IrType::Map(k, v) => {
                // As for a list: the handle's layout is fixed, but the entry's must exist.
                IrType::map_entry(k, v).layout()?;
                Some((compute_layout(kind, &[], &mut []).layout, Vec::new()))
            }
            _ => Some((compute_layout(kind, &[], &mut []).layout, Vec::new())),
        }
    }

    /// Writes the type with type parameters named by `names` (or `T0`, `T1`, ... ).
    pub fn display<'a>(&'a self, names: &'a [String]) -> impl fmt::Display + 'a {
        DisplayType { ty: self, names }
    }
}

struct DisplayType<'a> {
    ty: &'a IrType,
    names: &'a [String],
}

impl fmt::Display for DisplayType<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = self.names;
        let sub = move |ty| DisplayType { ty, names };
        match self.ty {
            IrType::List(e) => write!(f, "[{}]", sub(e)),
            IrType::Option(e) => write!(f, "?{}", sub(e)),
            IrType::Map(k, v) => write!(f, "map[{}, {}]", sub(k), sub(v)),
            IrType::Tuple(fields) => {
                write!(f, "(")?;
                for (i, field) in fields.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{}", sub(field))?;
                }
                if fields.len() == 1 {
                    write!(f, ",")?;
                }
                write!(f, ")")
            }
            IrType::Record(record) => write!(f, "{}", record.name),
            IrType::Enum(e) if e.args.is_empty() => write!(f, "{}", e.name),
            IrType::Enum(e) => {
                write!(f, "{}[", e.name)?;
                for (i, a) in e.args.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{}", sub(a))?;
                }
                write!(f, "]")
            }
            IrType::Param(n) => match self.names.get(*n as usize) {
                Some(name) => write!(f, "{name}"),
                None => write!(f, "T{n}"),
            },
            other => write!(f, "{}", other.kind().expect("not a parameter").name()),
        }
    }
}

impl fmt::Display for IrType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.display(&[]))
    }
}

/// How an argument is passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamMode {
    /// Owned: the callee takes the value (a copy value is copied).
    In,
    /// Read only, borrowed for the call.
    Ref,
    /// Changed in place; initialized before and after.
    Mut,
    /// Written by the callee; uninitialized before, initialized after success.
    Out,
}

impl ParamMode {
    pub fn keyword(self) -> &'static str {
        match self {
            ParamMode::In => "in",
            ParamMode::Ref => "ref",
            ParamMode::Mut => "mut",
            ParamMode::Out => "out",
        }
    }
}

impl fmt::Display for ParamMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.keyword())
    }
}

/// The class a type parameter is constrained to (`where { T is fixedint, }`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TypeClass {
    /// Any type.
    Any,
    /// The fixed-width integers u8..u64, i8..i64.
    Fixedint,
    /// f32 and f64.
    Float,
}

impl TypeClass {
    pub fn from_name(name: &str) -> Option<TypeClass> {
        Some(match name {
            "any" => TypeClass::Any,
            "fixedint" => TypeClass::Fixedint,
            "float" => TypeClass::Float,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            TypeClass::Any => "any",
            TypeClass::Fixedint => "fixedint",
            TypeClass::Float => "float",
        }
    }

    /// Whether a concrete type belongs to the class. A type parameter belongs to a class
    /// when its own constraint implies it (see [`TypeClass::implies`]).
    pub fn admits(self, ty: &IrType) -> bool {
        match self {
            TypeClass::Any => true,
            TypeClass::Fixedint => matches!(
                ty,
                IrType::U8
                    | IrType::U16
                    | IrType::U32
                    | IrType::U64
                    | IrType::I8
                    | IrType::I16
                    | IrType::I32
                    | IrType::I64
            ),
            TypeClass::Float => matches!(ty, IrType::F32 | IrType::F64),
        }
    }

    /// Whether every type in `self` is in `other`.
    pub fn implies(self, other: TypeClass) -> bool {
        other == TypeClass::Any || self == other
    }
}

/// A type parameter: its name and its class.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TypeParam {
    pub name: String,
    pub class: TypeClass,
}
