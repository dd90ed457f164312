//! Name resolution across files: loads every module the root imports (and theirs), the
//! interfaces of the riders they require, and builds each file's scope of callable names
//! (its own functions and its imports) with every function's signature resolved. Local
//! variables are the type checker's, which scopes them as it goes.

use std::collections::BTreeMap;

use super::ast::{self, Item, SourceKind, TypeExpr, TypeExprKind};
use super::loader::{Loaded, Loader};
use super::parser::parse;
use super::suggest;
use crate::Help;
use datalove_ir::diag::{Diagnostic, FileId, Sources, Span};
use datalove_ir::native::{NativeDecl, RiderInterface};
use datalove_ir::types::{EnumType, IrType, ParamMode, RecordType, TypeClass, TypeParam};

/// One parsed file and what it is.
#[derive(Debug)]
pub struct ParsedFile {
    pub ast: ast::SourceFile,
    /// The module name, or `None` for the root script.
    pub module: Option<String>,
}

/// A resolved signature, shared by program functions and natives.
#[derive(Clone, Debug, PartialEq)]
pub struct Signature {
    pub type_params: Vec<TypeParam>,
    pub params: Vec<SigParam>,
    pub result: IrType,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SigParam {
    pub name: String,
    pub mode: ParamMode,
    pub ty: IrType,
    pub span: Span,
}

impl Signature {
    pub fn of_native(decl: &NativeDecl) -> Signature {
        Signature {
            type_params: decl.type_params.clone(),
            params: decl
                .params
                .iter()
                .map(|p| SigParam {
                    name: p.name.clone(),
                    mode: p.mode,
                    ty: p.ty.clone(),
                    span: decl.span,
                })
                .collect(),
            result: decl.result.clone(),
        }
    }

    /// Type parameters that no parameter mentions: only the expected type of a call can
    /// decide them.
    pub fn return_position_params(&self) -> Vec<u32> {
        datalove_ir::native::undetermined_type_params(
            self.params.iter().map(|p| &p.ty),
            self.type_params.len(),
        )
    }
}

/// A program function: where it is declared and its signature.
#[derive(Clone, Debug)]
pub struct FunInfo {
    /// The IR name: `module.name` or, in the root script, `name`.
    pub ir_name: String,
    /// The name as written.
    pub name: String,
    /// Index into [`Resolved::files`].
    pub file: usize,
    /// Index into that file's items.
    pub item: usize,
    pub sig: Signature,
    pub span: Span,
}

/// What a name in a file's scope can be called as.
#[derive(Clone, Debug, PartialEq)]
pub enum Callable {
    Function(usize),
    Native { rider: usize, name: String },
}

#[derive(Debug, Default)]
pub struct Resolved {
    pub files: Vec<ParsedFile>,
    pub riders: Vec<RiderInterface>,
    pub functions: Vec<FunInfo>,
    /// Per file: callable names.
    pub scopes: Vec<BTreeMap<String, Callable>>,
    /// Per file: the record types it can name (its own and those it imports).
    pub record_scopes: Vec<BTreeMap<String, IrType>>,
}

impl Resolved {
    pub fn signature(&self, callable: &Callable) -> Signature {
        match callable {
            Callable::Function(f) => self.functions[*f].sig.clone(),
            Callable::Native { rider, name } => Signature::of_native(
                self.riders[*rider]
                    .native(name)
                    .expect("scopes name only declared natives"),
            ),
        }
    }
}

/// Name of the script body in the IR; a script may not define a function of that name.
pub const ENTRY_NAME: &str = "main";

/// The text of a file read as `bytes`. A file that is not UTF-8 is reported (`S012`, at
/// its first bad byte) and added to `sources` as best it can be shown (each bad sequence
/// as U+FFFD, which keeps the line and column of everything before it); its id then.
pub fn decode(
    sources: &mut Sources,
    path: &str,
    bytes: Vec<u8>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<String, FileId> {
    let e = match String::from_utf8(bytes) {
        Ok(text) => return Ok(text),
        Err(e) => e,
    };
    let at = e.utf8_error().valid_up_to();
    let bytes = e.as_bytes();
    let label = match e.utf8_error().error_len() {
        Some(_) => format!("byte 0x{:02x} is not part of a UTF-8 character", bytes[at]),
        None => "a UTF-8 character cut off by the end of the file".to_string(),
    };
    let file = sources.add(path, String::from_utf8_lossy(bytes).into_owned());
    // U+FFFD, where the first bad sequence was, is three bytes.
    diagnostics.push(
        Diagnostic::error(
            "S012",
            Span::new(file, at, at + 3),
            format!("`{path}` is not UTF-8 text"),
        )
        .with_label(label)
        .with_note("datalove sources (.dfs, .dfm) and rider interfaces (.dli) are UTF-8"),
    );
    Err(file)
}

/// Loads and resolves everything `root` reaches.
pub fn resolve(
    loader: &dyn Loader,
    sources: &mut Sources,
    root_path: &str,
    root_text: &str,
    diagnostics: &mut Vec<Diagnostic>,
) -> Resolved {
    let mut r = Resolver {
        loader,
        sources,
        diagnostics,
        out: Resolved::default(),
        module_files: BTreeMap::new(),
        rider_index: BTreeMap::new(),
    };
    r.load(root_path, root_text);
    r.declare_records();
    r.declare_functions();
    r.build_scopes();
    r.out
}

struct Resolver<'a> {
    loader: &'a dyn Loader,
    sources: &'a mut Sources,
    diagnostics: &'a mut Vec<Diagnostic>,
    out: Resolved,
    /// Module name to file index; `None` when it could not be found.
    module_files: BTreeMap<String, Option<usize>>,
    /// Rider name to index into `out.riders`; `None` when it could not be loaded.
    rider_index: BTreeMap<String, Option<usize>>,
}

fn kind_of(path: &str) -> SourceKind {
    if path.ends_with(".dfm") {
        SourceKind::Module
    } else {
        SourceKind::Script
    }
}

fn module_name_of(path: &str) -> String {
    let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
    file.strip_suffix(".dfm").unwrap_or(file).to_string()
}

impl Resolver<'_> {
    fn add_file(
        &mut self,
        path: &str,
        text: &str,
        kind: SourceKind,
        module: Option<String>,
    ) -> usize {
        let id = self.sources.add(path, text);
        let (ast, mut diags) = parse(id, kind, text);
        self.diagnostics.append(&mut diags);
        self.out.files.push(ParsedFile { ast, module });
        self.out.files.len() - 1
    }

    /// Loads the root, then every module and rider reachable from it.
    fn load(&mut self, root_path: &str, root_text: &str) {
        let kind = kind_of(root_path);
        let module = (kind == SourceKind::Module).then(|| module_name_of(root_path));
        let root = self.add_file(root_path, root_text, kind, module.clone());
        if let Some(m) = module {
            self.module_files.insert(m, Some(root));
        }
        let mut next = 0;
        while next < self.out.files.len() {
            let file = next;
            next += 1;
            let kind = self.out.files[file].ast.kind;
            let mut required = Vec::new();
            let mut imported = Vec::new();
            for item in &self.out.files[file].ast.items {
                match item {
                    Item::Require { rider, span } => required.push((rider.clone(), *span)),
                    Item::Import { from, .. } => imported.push(from.clone()),
                    _ => {}
                }
            }
            for (rider, span) in &required {
                if kind == SourceKind::Script {
                    self.diagnostics.push(
                        Diagnostic::error(
                            "F082",
                            *span,
                            format!("a script may not require a rider (`require rider {}`)", rider.name),
                        )
                        .with_label("only modules (.dfm) require riders")
                        .with_note("reach natives through a module function that wraps them, e.g. `import fixedint.zero`"),
                    );
                } else {
                    self.load_rider(rider);
                }
            }
            if let Some(at) = super::format::first_call(&self.out.files[file].ast) {
                // `format` writes values with these modules' functions.
                for module in super::format::MODULES {
                    self.load_module(&ast::Ident {
                        name: module.to_string(),
                        span: at,
                    });
                }
            }
            let required_names: Vec<&str> = required.iter().map(|(r, _)| r.name.as_str()).collect();
            for from in imported {
                if kind == SourceKind::Module && required_names.contains(&from.name.as_str()) {
                    continue;
                }
                self.load_module(&from);
            }
        }
    }

    fn load_rider(&mut self, rider: &ast::Ident) {
        if self.rider_index.contains_key(&rider.name) {
            return;
        }
        let Some(loaded) = self.loader.rider(&rider.name) else {
            self.rider_index.insert(rider.name.clone(), None);
            self.diagnostics.push(
                Diagnostic::error("N004", rider.span, format!("no rider `{}` is known", rider.name))
                    .with_label("no interface file for this rider")
                    .with_note(format!(
                        "a rider's interface is `{}.dli` in a rider directory (--rider-path or DATALOVE_RIDER_PATH)",
                        rider.name
                    )),
            );
            return;
        };
        let Some((path, text)) = self.text_of(loaded, "rider", rider) else {
            self.rider_index.insert(rider.name.clone(), None);
            return;
        };
        let file = self.sources.add(path, text.clone());
        match datalove_ir::dli::parse_dli(&rider.name, file, &text) {
            Ok(interface) => {
                self.out.riders.push(interface);
                self.rider_index
                    .insert(rider.name.clone(), Some(self.out.riders.len() - 1));
            }
            Err(mut diags) => {
                self.diagnostics.append(&mut diags);
                self.rider_index.insert(rider.name.clone(), None);
            }
        }
    }

    fn load_module(&mut self, from: &ast::Ident) {
        if self.module_files.contains_key(&from.name) {
            return;
        }
        match self.loader.module(&from.name) {
            Some(loaded) => {
                let file = self.text_of(loaded, "module", from).map(|(path, text)| {
                    self.add_file(&path, &text, SourceKind::Module, Some(from.name.clone()))
                });
                self.module_files.insert(from.name.clone(), file);
            }
            None => {
                self.module_files.insert(from.name.clone(), None);
                let mut d = Diagnostic::error(
                    "N003",
                    from.span,
                    format!("no module `{}` is known", from.name),
                )
                .with_label("no such module");
                let known: Vec<String> = super::loader::LIBRARY
                    .iter()
                    .map(|(name, _)| name.to_string())
                    .chain(
                        self.module_files
                            .iter()
                            .filter(|(_, file)| file.is_some())
                            .map(|(name, _)| name.clone()),
                    )
                    .collect();
                if let Some(near) = suggest::similar(&from.name, known.iter().map(String::as_str)) {
                    d = d.with_help(format!("a module with a similar name exists: `{near}`"));
                }
                if self.loader.rider(&from.name).is_some() {
                    d = d.with_note(format!(
                        "`{}` is a rider: a module reaches its natives after `require rider {}`; a script reaches them through a module",
                        from.name, from.name
                    ));
                }
                self.diagnostics.push(d);
            }
        }
    }

    /// The path and text of a file the loader found for the `what` (module or rider)
    /// named at `named`; `None`, reported, when it cannot be read (`N011`) or is not
    /// UTF-8 (`S012`).
    fn text_of(
        &mut self,
        loaded: Loaded,
        what: &str,
        named: &ast::Ident,
    ) -> Option<(String, String)> {
        let bytes = match loaded.bytes {
            Ok(bytes) => bytes,
            Err(error) => {
                self.diagnostics.push(
                    Diagnostic::error(
                        "N011",
                        named.span,
                        format!(
                            "{what} `{}` is `{}`, which cannot be read: {error}",
                            named.name, loaded.path
                        ),
                    )
                    .with_label(format!("this {what}'s file cannot be read")),
                );
                return None;
            }
        };
        decode(self.sources, &loaded.path, bytes, self.diagnostics)
            .ok()
            .map(|text| (loaded.path, text))
    }

    /// Gives every `fun` of every file an index and a resolved signature.
    fn declare_functions(&mut self) {
        for file in 0..self.out.files.len() {
            let module = self.out.files[file].module.clone();
            let is_script = self.out.files[file].ast.kind == SourceKind::Script;
            let mut seen: BTreeMap<String, Span> = BTreeMap::new();
            for item in 0..self.out.files[file].ast.items.len() {
                let Item::Fun(decl) = &self.out.files[file].ast.items[item] else {
                    if let Item::Stmt(stmt) = &self.out.files[file].ast.items[item] {
                        if !is_script {
                            self.diagnostics.push(
                                Diagnostic::error(
                                    "F007",
                                    stmt.span,
                                    "a module holds only `require`, `import` and `fun`",
                                )
                                .with_label("a statement outside a function")
                                .with_note("statements at the top level belong to scripts (.dfs)"),
                            );
                        }
                    }
                    continue;
                };
                let decl = decl.clone();
                if let Some(first) = seen.get(&decl.name.name) {
                    self.diagnostics.push(
                        Diagnostic::error(
                            "N006",
                            decl.name.span,
                            format!("`{}` is defined twice", decl.name.name),
                        )
                        .with_secondary(*first, "first defined here"),
                    );
                    continue;
                }
                seen.insert(decl.name.name.clone(), decl.name.span);
                if is_script && decl.name.name == ENTRY_NAME {
                    self.diagnostics.push(Diagnostic::error(
                        "N008",
                        decl.name.span,
                        format!(
                            "`{ENTRY_NAME}` is the name of the script body; choose another name"
                        ),
                    ));
                    continue;
                }
                let sig = self.signature(file, &decl);
                let ir_name = match &module {
                    Some(m) => format!("{m}.{}", decl.name.name),
                    None => decl.name.name.clone(),
                };
                self.out.functions.push(FunInfo {
                    ir_name,
                    name: decl.name.name.clone(),
                    file,
                    item,
                    sig,
                    span: decl.span,
                });
            }
        }
    }

    fn signature(&mut self, file: usize, decl: &ast::FunDecl) -> Signature {
        let records = &self.out.record_scopes[file];
        let mut type_params: Vec<TypeParam> = Vec::new();
        let mut spans: Vec<Span> = Vec::new();
        for tp in &decl.type_params {
            if let Some(i) = type_params.iter().position(|t| t.name == tp.name) {
                self.diagnostics.push(
                    Diagnostic::error(
                        "N010",
                        tp.span,
                        format!("type parameter `{}` is declared twice", tp.name),
                    )
                    .with_secondary(spans[i], "first declared here"),
                );
                continue;
            }
            type_params.push(TypeParam {
                name: tp.name.clone(),
                class: TypeClass::Any,
            });
            spans.push(tp.span);
        }
        for (param, class) in &decl.constraints {
            let Some(i) = type_params.iter().position(|t| t.name == param.name) else {
                self.diagnostics.push(Diagnostic::error(
                    "N002",
                    param.span,
                    format!(
                        "`{}` is not a type parameter of `{}`",
                        param.name, decl.name.name
                    ),
                ));
                continue;
            };
            match TypeClass::from_name(&class.name) {
                Some(c) => type_params[i].class = c,
                None => self.diagnostics.push(
                    Diagnostic::error(
                        "N009",
                        class.span,
                        format!("no type class `{}`", class.name),
                    )
                    .with_note("the classes are `any`, `fixedint` and `float`"),
                ),
            }
        }
        let names: Vec<String> = type_params.iter().map(|t| t.name.clone()).collect();
        let mut params: Vec<SigParam> = Vec::new();
        for p in &decl.params {
            if let Some(first) = params.iter().find(|q| q.name == p.name.name) {
                let first = first.span;
                self.diagnostics.push(
                    Diagnostic::error(
                        "N010",
                        p.name.span,
                        format!("parameter `{}` is declared twice", p.name.name),
                    )
                    .with_secondary(first, "first declared here"),
                );
                continue;
            }
            let ty = resolve_type(&p.ty, &names, records, self.diagnostics);
            params.push(SigParam {
                name: p.name.name.clone(),
                mode: p.mode,
                ty,
                span: p.name.span,
            });
        }
        let result = match &decl.result {
            Some(t) => resolve_type(t, &names, records, self.diagnostics),
            None => IrType::Unit,
        };
        Signature {
            type_params,
            params,
            result,
        }
    }

    /// Each file's callable names: its own functions, then its imports.
    fn build_scopes(&mut self) {
        let mut own: Vec<BTreeMap<String, usize>> = vec![BTreeMap::new(); self.out.files.len()];
        for (i, f) in self.out.functions.iter().enumerate() {
            own[f.file].insert(f.name.clone(), i);
        }
        for file in 0..self.out.files.len() {
            let mut scope: BTreeMap<String, Callable> = own[file]
                .iter()
                .map(|(n, i)| (n.clone(), Callable::Function(*i)))
                .collect();
            let mut spans: BTreeMap<String, Span> = own[file]
                .iter()
                .map(|(n, i)| (n.clone(), self.out.functions[*i].span))
                .collect();
            let kind = self.out.files[file].ast.kind;
            let required: Vec<String> = self.out.files[file]
                .ast
                .items
                .iter()
                .filter_map(|i| match i {
                    Item::Require { rider, .. } => Some(rider.name.clone()),
                    _ => None,
                })
                .collect();
            let imports: Vec<(ast::Ident, ast::Ident, Option<ast::Ident>, Span)> = self.out.files
                [file]
                .ast
                .items
                .iter()
                .filter_map(|i| match i {
                    Item::Import {
                        from,
                        name,
                        alias,
                        span,
                    } => Some((from.clone(), name.clone(), alias.clone(), *span)),
                    _ => None,
                })
                .collect();
            for (from, name, alias, span) in imports {
                let callable = if kind == SourceKind::Module && required.contains(&from.name) {
                    let Some(Some(rider)) = self.rider_index.get(&from.name).copied() else {
                        continue; // already reported
                    };
                    if self.out.riders[rider].native(&name.name).is_none() {
                        let mut d = Diagnostic::error(
                            "N005",
                            name.span,
                            format!("rider `{}` declares no native `{}`", from.name, name.name),
                        )
                        .with_label("not in the rider's interface");
                        let natives = self.out.riders[rider]
                            .natives
                            .iter()
                            .map(|n| n.name.as_str());
                        if let Some(near) = suggest::similar(&name.name, natives) {
                            d = d.with_help(format!(
                                "a native with a similar name exists: `{near}`"
                            ));
                        }
                        self.diagnostics.push(d);
                        continue;
                    }
                    Callable::Native {
                        rider,
                        name: name.name.clone(),
                    }
                } else {
                    let Some(Some(module_file)) = self.module_files.get(&from.name).copied() else {
                        continue; // already reported
                    };
                    let record = self.out.files[module_file]
                        .ast
                        .items
                        .iter()
                        .any(|i| type_decl(i).is_some_and(|(n, _)| n.name == name.name));
                    if record && !own[module_file].contains_key(&name.name) {
                        continue; // a record or enum type: `declare_records` imported it
                    }
                    let Some(f) = own[module_file].get(&name.name) else {
                        let reexport = self.out.files[module_file].ast.items.iter().any(|i| {
                            matches!(i, Item::Import { name: n, alias, .. }
                                if alias.as_ref().unwrap_or(n).name == name.name)
                        });
                        let mut d = Diagnostic::error(
                            "N005",
                            name.span,
                            format!("module `{}` defines no function `{}`", from.name, name.name),
                        )
                        .with_label("not exported by the module");
                        let exported = own[module_file].keys().map(String::as_str);
                        if let Some(near) = suggest::similar(&name.name, exported) {
                            d = d.with_help(format!(
                                "a function with a similar name exists: `{near}`"
                            ));
                        }
                        if reexport {
                            d = d.with_note(format!(
                                "`{}` imports `{}` but a module's imports are not exported again",
                                from.name, name.name
                            ));
                        }
                        self.diagnostics.push(d);
                        continue;
                    };
                    Callable::Function(*f)
                };
                let local = alias.unwrap_or(name);
                if let Some(first) = spans.get(&local.name) {
                    self.diagnostics.push(
                        Diagnostic::error(
                            "N006",
                            local.span,
                            format!("`{}` is already defined in this file", local.name),
                        )
                        .with_secondary(*first, "first defined here")
                        .with_note("import it under another name: `import M.f as g`"),
                    );
                    continue;
                }
                spans.insert(local.name.clone(), span);
                scope.insert(local.name, callable);
            }
            self.out.scopes.push(scope);
        }
    }
}

/// Resolves a written type over the named type parameters and the record types the
/// file can name.
pub fn resolve_type(
    t: &TypeExpr,
    type_params: &[String],
    records: &BTreeMap<String, IrType>,
    diagnostics: &mut Vec<Diagnostic>,
) -> IrType {
    let mut sub = |t| resolve_type(t, type_params, records, diagnostics);
    match &t.kind {
        TypeExprKind::Applied(name, args) => {
            let args: Vec<IrType> = args.iter().map(sub).collect();
            instantiate(t.span, name, &args, records, diagnostics)
        }
        TypeExprKind::Unit => IrType::Unit,
        TypeExprKind::List(e) => IrType::list(sub(e)),
        TypeExprKind::Option(e) => IrType::option(sub(e)),
        TypeExprKind::Map(k, v) => IrType::map(sub(k), sub(v)),
        TypeExprKind::Tuple(fields) => IrType::Tuple(fields.iter().map(sub).collect()),
        TypeExprKind::Named(name) => {
            if let Some(i) = type_params.iter().position(|p| p == name) {
                return IrType::Param(i as u32);
            }
            if let Some(record) = records.get(name) {
                if let IrType::Enum(e) = record {
                    if record.mentions_param() {
                        let arity = generic_arity(record);
                        diagnostics.push(
                            Diagnostic::error(
                                "E008",
                                t.span,
                                format!(
                                    "enum `{}` is generic: it takes {arity} type argument{}",
                                    e.name,
                                    if arity == 1 { "" } else { "s" }
                                ),
                            )
                            .with_label("type arguments missing")
                            .with_help(format!("write them in brackets: `{}[...]`", e.name)),
                        );
                        return IrType::Unit;
                    }
                }
                return record.clone();
            }
            match IrType::from_name(name) {
                Some(ty) => ty,
                None => {
                    let mut d = Diagnostic::error("N002", t.span, format!("no type `{name}`"))
                        .with_label("unknown type");
                    if let Some(near) = suggest::similar(name, records.keys().map(String::as_str)) {
                        d = d.with_help(format!("a record with a similar name exists: `{near}`"));
                    }
                    diagnostics.push(d);
                    IrType::Unit
                }
            }
        }
    }
}

/// How many type parameters a generic enum's declaration has: its arguments, which in
/// the declaration are its own parameters in order (`declare_enum`).
fn generic_arity(template: &IrType) -> usize {
    let mut params = Vec::new();
    template.collect_params(&mut params);
    params.len()
}

/// A generic enum `name` at the type arguments `args` (`result[i64, string]`): its
/// declaration with `args` as its arguments (its payloads, over its own parameters, take
/// them when read: `EnumType::variant_fields`).
fn instantiate(
    span: Span,
    name: &str,
    args: &[IrType],
    records: &BTreeMap<String, IrType>,
    diagnostics: &mut Vec<Diagnostic>,
) -> IrType {
    let Some(template) = records.get(name) else {
        diagnostics.push(
            Diagnostic::error("N002", span, format!("no type `{name}`")).with_label("unknown type"),
        );
        return IrType::Unit;
    };
    let arity = generic_arity(template);
    let IrType::Enum(e) = template else {
        diagnostics.push(
            Diagnostic::error("E008", span, format!("`{name}` takes no type arguments"))
                .with_label("only a generic enum takes type arguments"),
        );
        return IrType::Unit;
    };
    if arity == 0 || arity != args.len() {
        diagnostics.push(
            Diagnostic::error(
                "E008",
                span,
                format!(
                    "enum `{name}` takes {arity} type argument{}, found {}",
                    if arity == 1 { "" } else { "s" },
                    args.len()
                ),
            )
            .with_label("wrong number of type arguments"),
        );
        return IrType::Unit;
    }
    let IrType::Enum(declared) = template else {
        unreachable!("an enum's declaration is an enum")
    };
    // The arguments stand beside the declared payloads, not in them.
    IrType::enumeration(EnumType {
        name: e.name.clone(),
        args: args.to_vec(),
        variant_names: declared.variant_names.clone(),
        declared_variants: declared.declared_variants.clone(),
    })
}

/// The name of a record or enum declaration, and which of the two it is.
fn type_decl(item: &Item) -> Option<(&ast::Ident, &'static str)> {
    match item {
        Item::Record(r) => Some((&r.name, "record")),
        Item::Enum(e) => Some((&e.name, "enum")),
        _ => None,
    }
}

/// `a record`, `an enum`.
fn article(what: &str) -> String {
    match what {
        "enum" => "an enum".to_string(),
        _ => format!("a {what}"),
    }
}

/// The names a written type mentions that may be records or enums.
fn named_types<'t>(t: &'t TypeExpr, out: &mut Vec<&'t str>) {
    match &t.kind {
        TypeExprKind::Applied(name, args) => {
            out.push(name);
            args.iter().for_each(|a| named_types(a, out));
        }
        TypeExprKind::Unit => {}
        TypeExprKind::List(e) | TypeExprKind::Option(e) => named_types(e, out),
        TypeExprKind::Tuple(fields) => fields.iter().for_each(|f| named_types(f, out)),
        TypeExprKind::Map(k, v) => {
            named_types(k, out);
            named_types(v, out);
        }
        TypeExprKind::Named(name) => out.push(name),
    }
}

impl Resolver<'_> {
    /// The enum `decl` declares, its payloads resolved over `scope` (its own type
    /// parameters are `Param(i)`: a generic enum is kept as the template
    /// [`instantiate`] fills in). A variant declared twice is `E005`; a type parameter
    /// no variant uses is `E008`.
    fn declare_enum(&mut self, decl: &ast::EnumDecl, scope: &BTreeMap<String, IrType>) -> IrType {
        let params: Vec<String> = decl.type_params.iter().map(|p| p.name.clone()).collect();
        // The declaration: its payloads over its own parameters, which its arguments are
        // here (an instance has its own in their place: [`instantiate`]).
        let mut made = EnumType {
            name: decl.name.name.clone(),
            args: (0..params.len() as u32).map(IrType::Param).collect(),
            variant_names: Vec::new(),
            declared_variants: Vec::new(),
        };
        for (variant, payload) in &decl.variants {
            if let Some((first, _)) = decl.variants.iter().find(|(v, _)| v.name == variant.name) {
                if first.span != variant.span {
                    self.diagnostics.push(
                        Diagnostic::error(
                            "E005",
                            variant.span,
                            format!(
                                "enum `{}` declares variant `{}` twice",
                                decl.name.name, variant.name
                            ),
                        )
                        .with_secondary(first.span, "first declared here"),
                    );
                    continue;
                }
            }
            let types = payload
                .iter()
                .map(|t| resolve_type(t, &params, scope, self.diagnostics))
                .collect();
            made.variant_names.push(variant.name.clone());
            made.declared_variants.push(types);
        }
        let mut used = Vec::new();
        for field in made.declared_variants.iter().flatten() {
            field.collect_params(&mut used);
        }
        let made = IrType::enumeration(made);
        for (i, p) in decl.type_params.iter().enumerate() {
            if !used.contains(&(i as u32)) {
                self.diagnostics.push(
                    Diagnostic::error(
                        "E008",
                        p.span,
                        format!(
                            "type parameter `{}` of enum `{}` is not used by any variant",
                            p.name, decl.name.name
                        ),
                    )
                    .with_label("unused type parameter"),
                );
            }
        }
        made
    }

    /// Gives every file the record types it can name: its own `record`s and those it
    /// imports (`import m.Point`), each resolved once. A record declared twice in a file
    /// is `R007`; one that contains itself (directly or through other records, lists,
    /// options or tuples) is `R008`; a field declared twice is `R005`.
    fn declare_records(&mut self) {
        type Decl = (usize, usize);
        let files = self.out.files.len();
        let mut visible: Vec<BTreeMap<String, Decl>> = vec![BTreeMap::new(); files];
        for (file, scope) in visible.iter_mut().enumerate() {
            for (item, it) in self.out.files[file].ast.items.iter().enumerate() {
                let Some((decl_name, what)) = type_decl(it) else {
                    continue;
                };
                if IrType::from_name(&decl_name.name).is_some() {
                    self.diagnostics.push(
                        Diagnostic::error(
                            "R010",
                            decl_name.span,
                            format!("`{}` is a built-in type", decl_name.name),
                        )
                        .with_label(format!(
                            "{} cannot take a built-in type's name",
                            article(what)
                        )),
                    );
                    continue;
                }
                if let Some(&(_, first)) = scope.get(&decl_name.name) {
                    let (first, _) = type_decl(&self.out.files[file].ast.items[first])
                        .expect("a type scope names records and enums");
                    self.diagnostics.push(
                        Diagnostic::error(
                            "R007",
                            decl_name.span,
                            format!("{what} `{}` is declared twice", decl_name.name),
                        )
                        .with_secondary(first.span, "first declared here"),
                    );
                    continue;
                }
                scope.insert(decl_name.name.clone(), (file, item));
            }
        }
        let own = visible.clone();
        for (file, scope) in visible.iter_mut().enumerate() {
            for it in &self.out.files[file].ast.items {
                let Item::Import {
                    from, name, alias, ..
                } = it
                else {
                    continue;
                };
                let Some(Some(module_file)) = self.module_files.get(&from.name).copied() else {
                    continue;
                };
                let Some(&found) = own[module_file].get(&name.name) else {
                    continue;
                };
                let local = alias.as_ref().unwrap_or(name);
                if let Some(&(f, item)) = scope.get(&local.name) {
                    let (first, _) = type_decl(&self.out.files[f].ast.items[item])
                        .expect("a type scope names records and enums");
                    let first = if f == file { first.span } else { local.span };
                    self.diagnostics.push(
                        Diagnostic::error(
                            "R007",
                            local.span,
                            format!("record `{}` is declared twice", local.name),
                        )
                        .with_secondary(first, "first declared here")
                        .with_note("import it under another name: `import M.Point as P`"),
                    );
                    continue;
                }
                scope.insert(local.name.clone(), found);
            }
        }
        // Resolve records whose records are resolved, until none is left or none moves:
        // those left contain themselves.
        let mut done: BTreeMap<Decl, IrType> = BTreeMap::new();
        let all: Vec<Decl> = own.iter().flat_map(|s| s.values().copied()).collect();
        loop {
            let mut moved = false;
            for &(file, item) in &all {
                if done.contains_key(&(file, item)) {
                    continue;
                }
                let it = &self.out.files[file].ast.items[item];
                let mut names = Vec::new();
                match it {
                    Item::Record(decl) => decl
                        .fields
                        .iter()
                        .for_each(|(_, t)| named_types(t, &mut names)),
                    Item::Enum(decl) => decl
                        .variants
                        .iter()
                        .flat_map(|(_, ts)| ts)
                        .for_each(|t| named_types(t, &mut names)),
                    _ => unreachable!("a type scope names records and enums"),
                }
                let ready = names.iter().all(|n| match visible[file].get(*n) {
                    Some(d) => done.contains_key(d),
                    None => true,
                });
                if !ready {
                    continue;
                }
                let scope: BTreeMap<String, IrType> = visible[file]
                    .iter()
                    .filter_map(|(n, d)| Some((n.clone(), done.get(d)?.clone())))
                    .collect();
                if let Item::Enum(decl) = it {
                    let decl = decl.clone();
                    let made = self.declare_enum(&decl, &scope);
                    done.insert((file, item), made);
                    moved = true;
                    continue;
                }
                let Item::Record(decl) = it else {
                    unreachable!("a type scope names records and enums")
                };
                let decl = decl.clone();
                let mut record = RecordType {
                    name: decl.name.name.clone(),
                    field_names: Vec::new(),
                    fields: Vec::new(),
                };
                for (field, t) in &decl.fields {
                    if let Some(first) = decl.fields.iter().find(|(f, _)| f.name == field.name) {
                        if first.0.span != field.span {
                            self.diagnostics.push(
                                Diagnostic::error(
                                    "R005",
                                    field.span,
                                    format!(
                                        "record `{}` declares field `{}` twice",
                                        decl.name.name, field.name
                                    ),
                                )
                                .with_secondary(first.0.span, "first declared here"),
                            );
                            continue;
                        }
                    }
                    let ty = resolve_type(t, &[], &scope, self.diagnostics);
                    record.field_names.push(field.name.clone());
                    record.fields.push(ty);
                }
                done.insert((file, item), IrType::record(record));
                moved = true;
            }
            if !moved {
                break;
            }
        }
        for &(file, item) in &all {
            if done.contains_key(&(file, item)) {
                continue;
            }
            let (decl_name, what) = type_decl(&self.out.files[file].ast.items[item])
                .expect("a type scope names records and enums");
            self.diagnostics.push(
                Diagnostic::error(
                    "R008",
                    decl_name.span,
                    format!("{what} `{}` contains itself", decl_name.name),
                )
                .with_label(format!(
                    "a {} holds this {what}, directly or inside another type",
                    if what == "enum" { "payload" } else { "field" }
                ))
                .with_note("a value holds its fields in place, so it cannot hold itself"),
            );
            let placeholder = if what == "enum" {
                IrType::enumeration(EnumType {
                    name: decl_name.name.clone(),
                    args: Vec::new(),
                    variant_names: Vec::new(),
                    declared_variants: Vec::new(),
                })
            } else {
                IrType::record(RecordType {
                    name: decl_name.name.clone(),
                    field_names: Vec::new(),
                    fields: Vec::new(),
                })
            };
            done.insert((file, item), placeholder);
        }
        self.out.record_scopes = visible
            .iter()
            .map(|scope| {
                scope
                    .iter()
                    .map(|(n, d)| (n.clone(), done[d].clone()))
                    .collect()
            })
            .collect();
    }
}
