//! Every message and enum of every file, by full name, with the facts about
//! the type graph that lowering asks for each field: computed once here, not
//! searched again per field.

use std::collections::{HashMap, HashSet};

use fastrs::descriptor::field_descriptor_proto::{Label, Type};
use fastrs::descriptor::{DescriptorProto, EnumDescriptorProto, FileDescriptorProto};

use super::externs::{self, ExternPath};
use super::locations as loc;
use super::names::{self, TypePath};
use super::syntax::FileFeatures;
use crate::options::Options;

/// Every message and enum of every file, by full name with leading dot.
pub struct Index<'a> {
    pub types: HashMap<String, TypeInfo<'a>>,
    /// Messages that hold a `required` field (a proto2 label, or the editions
    /// feature `LEGACY_REQUIRED`), themselves or in a message they can hold.
    checks_required: HashSet<String>,
    /// Each message's strongly connected component in the graph of singular
    /// message fields: two messages in one component hold each other inline,
    /// so one of them must box the other.
    inline_component: HashMap<String, usize>,
    /// The type names in each generated module (messages, enums and the
    /// oneof enums of the module's message): names a view must not take.
    module_names: HashMap<Vec<String>, HashSet<String>>,
    /// Each file's package.
    packages: HashMap<&'a str, &'a str>,
}

pub struct TypeInfo<'a> {
    pub path: TypePath,
    pub def: Def<'a>,
    /// The file that declares it.
    pub file: &'a str,
}

pub enum Def<'a> {
    Message(&'a DescriptorProto),
    /// An enum, and whether it is closed.
    Enum(&'a EnumDescriptorProto, bool),
}

impl<'a> Index<'a> {
    /// Indexes `files`; `generated` are the packages being generated (a
    /// generated `google.protobuf` is not taken from the runtime).
    pub fn build(
        files: &'a [FileDescriptorProto],
        options: &Options,
        generated: &HashSet<&str>,
        features: &'a HashMap<String, FileFeatures>,
    ) -> Self {
        let externs = externs::with_well_known(&options.extern_paths, |package| generated.contains(package));
        let mut builder = Builder {
            types: HashMap::new(),
            with_required: HashSet::new(),
            externs,
        };
        for file in files {
            let prefix = if file.package().is_empty() {
                String::new()
            } else {
                format!(".{}", file.package())
            };
            let modules = names::package_modules(file.package());
            let Some(file_features) = features.get(file.name()) else {
                continue;
            };
            let closedness = Closedness {
                features: file_features,
                file: file.name(),
            };
            for (i, m) in file.message_type.iter().enumerate() {
                builder.add_message(m, &prefix, &modules, &closedness, vec![loc::FILE_MESSAGE, i as i32]);
            }
            for (i, e) in file.enum_type.iter().enumerate() {
                let closed = closedness.closed(&[loc::FILE_ENUM, i as i32]);
                builder.add_type(
                    format!("{prefix}.{}", e.name()),
                    &modules,
                    e.name(),
                    Def::Enum(e, closed),
                    closedness.file,
                );
            }
        }
        let mut index = builder.finish();
        index.packages = files.iter().map(|f| (f.name(), f.package())).collect();
        index
    }

    /// The package of file `name` (empty if unknown or none).
    pub fn package_of(&self, name: &str) -> &'a str {
        self.packages.get(name).copied().unwrap_or_default()
    }

    /// The message named `full` (with leading dot), if it is one.
    pub fn message(&self, full: &str) -> Option<&'a DescriptorProto> {
        match self.types.get(full)?.def {
            Def::Message(m) => Some(m),
            Def::Enum(..) => None,
        }
    }

    /// True if a value of message `full` can hold a `required` field, itself or
    /// in any message reachable through its fields.
    pub fn checks_required(&self, full: &str) -> bool {
        self.checks_required.contains(full)
    }

    /// True if a value of message `from` contains (not through a `Vec` or map) a
    /// value of message `target`, which holds a `from` inline: the two would
    /// make an infinitely sized type, so the field must be boxed.
    pub fn contains(&self, from: &str, target: &str) -> bool {
        from == target
            || matches!(
                (self.inline_component.get(from), self.inline_component.get(target)),
                (Some(a), Some(b)) if a == b
            )
    }

    /// The name of the view of type `name` (a message or a oneof enum) in
    /// module `modules`: `{name}View`, with `_` added while another type of
    /// the module has that name (a message `FooView` beside `Foo`).
    pub fn view_name(&self, modules: &[String], name: &str) -> String {
        let mut view = format!("{name}View");
        if let Some(taken) = self.module_names.get(modules) {
            while taken.contains(&view) {
                view.push('_');
            }
        }
        view
    }

    /// The path of the view of the message at `path`. A type from another
    /// crate (`extern_path`) is taken to have its view beside it.
    pub fn view_path(&self, path: &TypePath) -> TypePath {
        match path {
            TypePath::Local { modules, name } => TypePath::Local {
                modules: modules.clone(),
                name: self.view_name(modules, name),
            },
            TypePath::Absolute(path) => TypePath::Absolute(path.with_suffix("View")),
        }
    }
}

/// Collects the types, then computes the graph facts once.
struct Builder<'a> {
    types: HashMap<String, TypeInfo<'a>>,
    with_required: HashSet<String>,
    externs: Vec<ExternPath>,
}

impl<'a> Builder<'a> {
    fn add_message(
        &mut self,
        m: &'a DescriptorProto,
        prefix: &str,
        modules: &[String],
        closedness: &Closedness<'a>,
        path: Vec<i32>,
    ) {
        let full = format!("{prefix}.{}", m.name());
        let inner: Vec<String> = modules.iter().cloned().chain([names::snake(m.name())]).collect();
        for (i, nested) in m.nested_type.iter().enumerate() {
            let nested_path = [&path[..], &[loc::MESSAGE_NESTED, i as i32]].concat();
            self.add_message(nested, &full, &inner, closedness, nested_path);
        }
        for (i, e) in m.enum_type.iter().enumerate() {
            let closed = closedness.closed(&[&path[..], &[loc::MESSAGE_ENUM, i as i32]].concat());
            self.add_type(
                format!("{full}.{}", e.name()),
                &inner,
                e.name(),
                Def::Enum(e, closed),
                closedness.file,
            );
        }
        let required = m.field.iter().enumerate().any(|(j, f)| {
            let field_path = [&path[..], &[loc::MESSAGE_FIELD, j as i32]].concat();
            closedness.features.field(&field_path, f).required()
        });
        if required {
            self.with_required.insert(full.clone());
        }
        self.add_type(full, modules, m.name(), Def::Message(m), closedness.file);
    }

    fn add_type(&mut self, full: String, modules: &[String], name: &str, def: Def<'a>, file: &'a str) {
        let path = externs::extern_path(&full, &self.externs).unwrap_or_else(|| TypePath::Local {
            modules: modules.to_vec(),
            name: names::camel(name),
        });
        self.types.insert(full, TypeInfo { path, def, file });
    }

    fn finish(self) -> Index<'a> {
        let graph = Graph::new(&self.types);
        let checks_required = graph.reaching(&self.with_required);
        let inline_component = graph.inline_components();
        let module_names = module_names(&self.types);
        Index {
            types: self.types,
            checks_required,
            inline_component,
            module_names,
            packages: HashMap::new(),
        }
    }
}

/// The names of the types generated into each module, oneof enums included.
fn module_names(types: &HashMap<String, TypeInfo<'_>>) -> HashMap<Vec<String>, HashSet<String>> {
    let mut taken: HashMap<Vec<String>, HashSet<String>> = HashMap::new();
    for info in types.values() {
        let TypePath::Local { modules, name } = &info.path else {
            continue;
        };
        taken.entry(modules.clone()).or_default().insert(name.clone());
        if let Def::Message(m) = info.def {
            let inner: Vec<String> = modules.iter().cloned().chain([names::snake(m.name())]).collect();
            let oneofs = m
                .oneof_decl
                .iter()
                .map(|o| names::oneof_enum_ident(o.name(), m).to_string());
            taken.entry(inner).or_default().extend(oneofs);
        }
    }
    taken
}

/// The messages, numbered, and the message fields between them.
struct Graph<'n> {
    names: Vec<&'n str>,
    /// `(to, singular)` for each message field of each message.
    edges: Vec<Vec<(usize, bool)>>,
}

impl<'n> Graph<'n> {
    fn new(types: &'n HashMap<String, TypeInfo<'_>>) -> Self {
        let mut names: Vec<&str> = types
            .iter()
            .filter(|(_, t)| matches!(t.def, Def::Message(_)))
            .map(|(name, _)| name.as_str())
            .collect();
        names.sort_unstable();
        let id: HashMap<&str, usize> = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
        let edges = names
            .iter()
            .map(|name| {
                let Some(TypeInfo {
                    def: Def::Message(m), ..
                }) = types.get(*name)
                else {
                    return Vec::new();
                };
                m.field
                    .iter()
                    .filter(|f| matches!(f.r#type(), Type::Message | Type::Group))
                    .filter_map(|f| Some((*id.get(f.type_name())?, f.label() != Label::Repeated)))
                    .collect()
            })
            .collect();
        Graph { names, edges }
    }

    /// The messages from which one of `targets` can be reached through
    /// fields (the targets included).
    fn reaching(&self, targets: &HashSet<String>) -> HashSet<String> {
        let mut reverse = vec![Vec::new(); self.names.len()];
        for (from, edges) in self.edges.iter().enumerate() {
            for &(to, _) in edges {
                reverse[to].push(from);
            }
        }
        let mut found = vec![false; self.names.len()];
        let mut stack: Vec<usize> = (0..self.names.len())
            .filter(|&i| targets.contains(self.names[i]))
            .collect();
        for &i in &stack {
            found[i] = true;
        }
        while let Some(i) = stack.pop() {
            for &from in &reverse[i] {
                if !found[from] {
                    found[from] = true;
                    stack.push(from);
                }
            }
        }
        (0..self.names.len())
            .filter(|&i| found[i])
            .map(|i| self.names[i].to_string())
            .collect()
    }

    /// Strongly connected components over singular fields (Kosaraju: a
    /// post-order of the graph, then searches of the reversed graph in the
    /// reverse of that order), as a component number per message.
    fn inline_components(&self) -> HashMap<String, usize> {
        let n = self.names.len();
        let inline = |i: usize| self.edges[i].iter().filter(|e| e.1).map(|e| e.0);
        let mut order = Vec::with_capacity(n);
        let mut visited = vec![false; n];
        for start in 0..n {
            if visited[start] {
                continue;
            }
            visited[start] = true;
            // (node, next edge to look at)
            let mut stack = vec![(start, 0)];
            while let Some((node, next)) = stack.pop() {
                match inline(node).nth(next) {
                    Some(to) => {
                        stack.push((node, next + 1));
                        if !visited[to] {
                            visited[to] = true;
                            stack.push((to, 0));
                        }
                    }
                    None => order.push(node),
                }
            }
        }
        let mut reverse = vec![Vec::new(); n];
        for from in 0..n {
            for to in inline(from) {
                reverse[to].push(from);
            }
        }
        let mut component = vec![usize::MAX; n];
        for (count, &root) in order.iter().rev().enumerate() {
            if component[root] != usize::MAX {
                continue;
            }
            component[root] = count;
            let mut stack = vec![root];
            while let Some(node) = stack.pop() {
                for &from in &reverse[node] {
                    if component[from] == usize::MAX {
                        component[from] = count;
                        stack.push(from);
                    }
                }
            }
        }
        (0..n).map(|i| (self.names[i].to_string(), component[i])).collect()
    }
}

/// A file's features, and its name, while its types are indexed.
struct Closedness<'f> {
    features: &'f FileFeatures,
    /// The file's name.
    file: &'f str,
}

impl Closedness<'_> {
    /// Whether the enum at `path` is closed (its `enum_type` feature).
    fn closed(&self, path: &[i32]) -> bool {
        self.features.resolve(path).closed_enum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fastrs::descriptor::FieldDescriptorProto;

    fn field(name: &str, type_name: &str, label: Label) -> FieldDescriptorProto {
        FieldDescriptorProto {
            name: Some(name.into()),
            number: Some(1),
            label: Some(label),
            r#type: Some(Type::Message),
            type_name: Some(type_name.into()),
            ..Default::default()
        }
    }

    fn message(name: &str, fields: Vec<FieldDescriptorProto>) -> DescriptorProto {
        DescriptorProto {
            name: Some(name.into()),
            field: fields,
            ..Default::default()
        }
    }

    #[test]
    fn containment_follows_singular_fields_only_and_required_follows_all() {
        use Label::{Optional, Repeated, Required};
        let mut leaf = message("Leaf", vec![]);
        leaf.field.push(FieldDescriptorProto {
            name: Some("id".into()),
            number: Some(1),
            label: Some(Required),
            r#type: Some(Type::Int32),
            ..Default::default()
        });
        let file = FileDescriptorProto {
            name: Some("g.proto".into()),
            package: Some("g".into()),
            message_type: vec![
                // A -> B -> C -> A inline: one component. D holds A in a list.
                message("A", vec![field("b", ".g.B", Optional)]),
                message("B", vec![field("c", ".g.C", Optional)]),
                message(
                    "C",
                    vec![field("a", ".g.A", Optional), field("leaves", ".g.Leaf", Repeated)],
                ),
                message("D", vec![field("as", ".g.A", Repeated)]),
                leaf,
                message("E", vec![]),
            ],
            ..Default::default()
        };
        let files = [file];
        let features = files
            .iter()
            .map(|f| (f.name().to_string(), FileFeatures::of(f)))
            .collect();
        let index = Index::build(&files, &Options::default(), &HashSet::new(), &features);
        assert!(index.contains(".g.B", ".g.A") && index.contains(".g.A", ".g.C"));
        assert!(index.contains(".g.E", ".g.E"), "a message contains itself");
        assert!(!index.contains(".g.A", ".g.D") && !index.contains(".g.D", ".g.A"));
        for name in [".g.A", ".g.B", ".g.C", ".g.D", ".g.Leaf"] {
            assert!(index.checks_required(name), "{name} reaches Leaf's required field");
        }
        assert!(!index.checks_required(".g.E"));
    }
}
