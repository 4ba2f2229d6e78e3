//! The module graphs of every crate of the workspace have no circles.
//!
//! Each crate's module tree is read from its sources the way rustc finds
//! them (`mod` declarations, `#[path]`, `include!`). Every path a module
//! names (in `use` items, in code and in macro bodies) is resolved to the
//! module that defines the item, following re-exports. That gives a graph
//! of modules; a strongly connected component with more than one module is
//! a circle, and the test names it. A module's `pub use` of its own
//! children is a facade, not a dependency, so it adds no edge; neither do
//! `#[cfg(test)]` items.
//!
//! The runtime's lower layers are also checked for order: wire, schema,
//! message, codec, field, view, outline, table, each using only those
//! before it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;

type ModPath = Vec<String>;

/// What one module declares: child modules, item names, `use` bindings.
#[derive(Default, Debug)]
struct Module {
    children: BTreeSet<String>,
    items: BTreeSet<String>,
    /// `use` bindings: name -> absolute target path.
    uses: BTreeMap<String, ModPath>,
    /// Glob imports: absolute module paths.
    globs: Vec<ModPath>,
    /// Paths named, as written: in `use` items (flagged public for a
    /// re-export, which adds no edge) and in code.
    named: Vec<Named>,
}

#[derive(Debug)]
struct Named {
    path: ModPath,
    in_use: bool,
    public: bool,
}

struct Crate {
    modules: BTreeMap<ModPath, Module>,
    /// Path roots that mean this crate (`crate`, `$crate`, and the crate's
    /// own name when it declares `extern crate self as name`).
    roots: Vec<&'static str>,
}

fn parse(file: &Path) -> syn::File {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
}

impl Crate {
    fn load(root: &Path, roots: Vec<&'static str>) -> Crate {
        let mut krate = Crate {
            modules: BTreeMap::new(),
            roots,
        };
        let dir = root.parent().unwrap().to_path_buf();
        krate.read_items(&parse(root).items, &[], &dir, &dir);
        krate
    }

    /// Reads the items of module `at`. `dir` is where its child modules'
    /// files are; `here` is the folder of the file being read.
    fn read_items(&mut self, items: &[syn::Item], at: &[String], dir: &Path, here: &Path) {
        self.modules.entry(at.to_vec()).or_default();
        for item in items.iter().filter(|item| !test_only(item)) {
            match item {
                syn::Item::Mod(m) => self.read_mod(m, at, dir, here),
                syn::Item::Use(u) => {
                    let public = !matches!(u.vis, syn::Visibility::Inherited);
                    self.read_use(&u.tree, at, Vec::new(), public);
                }
                syn::Item::Macro(m) if m.mac.path.is_ident("include") => {
                    // `include!("file.rs")`: the file's items belong here.
                    if let Ok(lit) = m.mac.parse_body::<syn::LitStr>() {
                        let file = here.join(lit.value());
                        let inner = parse(&file);
                        self.read_items(&inner.items, at, dir, file.parent().unwrap());
                    } else {
                        self.name_paths(at, m.to_token_stream());
                    }
                }
                _ => {
                    if let Some(name) = item_name(item) {
                        self.modules.get_mut(at).unwrap().items.insert(name);
                    }
                    self.name_paths(at, item.to_token_stream());
                }
            }
        }
    }

    /// Reads module `m`, declared in module `at` (whose child modules' files
    /// are in `dir`) of the file in folder `here`.
    fn read_mod(&mut self, m: &syn::ItemMod, at: &[String], dir: &Path, here: &Path) {
        let name = m.ident.to_string();
        let mut child = at.to_vec();
        child.push(name.clone());
        self.modules.get_mut(at).unwrap().children.insert(name.clone());
        if let Some((_, items)) = &m.content {
            // An inline module's `include!`s are relative to its file.
            self.read_items(items, &child, &dir.join(&name), here);
            return;
        }
        let explicit = m.attrs.iter().find_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s), ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        });
        let (file, child_dir) = match explicit {
            Some(p) => {
                let file = dir.join(p);
                let child_dir = file.parent().unwrap().to_path_buf();
                (file, child_dir)
            }
            None if dir.join(format!("{name}.rs")).exists() => (dir.join(format!("{name}.rs")), dir.join(&name)),
            None => (dir.join(&name).join("mod.rs"), dir.join(&name)),
        };
        let here = file.parent().unwrap().to_path_buf();
        self.read_items(&parse(&file).items, &child, &child_dir, &here);
    }

    fn read_use(&mut self, tree: &syn::UseTree, at: &[String], prefix: ModPath, public: bool) {
        let module = self.modules.get_mut(at).unwrap();
        match tree {
            syn::UseTree::Path(p) => {
                let mut prefix = prefix;
                prefix.push(p.ident.to_string());
                self.read_use(&p.tree, at, prefix, public);
            }
            syn::UseTree::Name(n) => {
                let mut path = prefix;
                let name = n.ident.to_string();
                if name != "self" {
                    path.push(name.clone());
                }
                let bound = path.last().cloned().unwrap_or(name);
                module.named.push(Named {
                    path: path.clone(),
                    in_use: true,
                    public,
                });
                module.uses.insert(bound, path);
            }
            syn::UseTree::Rename(r) => {
                let mut path = prefix;
                if r.ident != "self" {
                    path.push(r.ident.to_string());
                }
                module.named.push(Named {
                    path: path.clone(),
                    in_use: true,
                    public,
                });
                module.uses.insert(r.rename.to_string(), path);
            }
            syn::UseTree::Glob(_) => {
                module.named.push(Named {
                    path: prefix.clone(),
                    in_use: true,
                    public,
                });
                module.globs.push(prefix);
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.read_use(t, at, prefix.clone(), public);
                }
            }
        }
    }

    /// Records every path in `tokens` (macro bodies included).
    fn name_paths(&mut self, at: &[String], tokens: TokenStream) {
        let mut paths = Vec::new();
        collect_paths(tokens, &mut paths);
        let module = self.modules.get_mut(at).unwrap();
        let named = paths.into_iter().map(|path| Named {
            path,
            in_use: false,
            public: false,
        });
        module.named.extend(named);
    }

    /// Makes a path as written in module `at` absolute, if it can name
    /// something of this crate. A `use` item's path does not start from
    /// the module's own `use` bindings; a path in code may.
    fn absolute(&self, at: &[String], path: &[String], in_use: bool) -> Option<ModPath> {
        let first = path.first()?;
        let module = &self.modules[at];
        if self.roots.contains(&first.as_str()) {
            return Some(path[1..].to_vec());
        }
        let mut base = at.to_vec();
        let mut rest = path;
        if first == "self" || first == "super" {
            while let Some(seg) = rest.first() {
                match seg.as_str() {
                    "self" => {}
                    "super" => {
                        base.pop()?;
                    }
                    _ => break,
                }
                rest = &rest[1..];
            }
        } else if module.children.contains(first) || module.items.contains(first) {
        } else if let Some(target) = module.uses.get(first).filter(|_| !in_use) {
            let mut out = self.absolute(at, target, true)?;
            out.extend_from_slice(&path[1..]);
            return Some(out);
        } else {
            return None;
        }
        base.extend_from_slice(rest);
        Some(base)
    }

    /// The module that defines what the absolute `path` names.
    fn resolve(&self, path: &[String], depth: usize) -> Option<ModPath> {
        if depth > 16 {
            return None;
        }
        let mut at: ModPath = Vec::new();
        for (i, seg) in path.iter().enumerate() {
            let module = &self.modules[&at];
            if module.children.contains(seg) {
                at.push(seg.clone());
                continue;
            }
            if module.items.contains(seg) {
                return Some(at);
            }
            if let Some(target) = module.uses.get(seg) {
                let mut full = self.absolute(&at, target, true)?;
                full.extend_from_slice(&path[i + 1..]);
                return self.resolve(&full, depth + 1);
            }
            for glob in &module.globs {
                let Some(mut full) = self.absolute(&at, glob, true) else {
                    continue;
                };
                full.extend_from_slice(&path[i..]);
                if let Some(found) = self.resolve(&full, depth + 1) {
                    return Some(found);
                }
            }
            return None;
        }
        Some(at)
    }

    /// Module -> modules it depends on.
    fn graph(&self) -> BTreeMap<ModPath, BTreeSet<ModPath>> {
        let mut graph: BTreeMap<ModPath, BTreeSet<ModPath>> = BTreeMap::new();
        for (at, module) in &self.modules {
            let edges = graph.entry(at.clone()).or_default();
            for named in &module.named {
                let Some(abs) = self.absolute(at, &named.path, named.in_use) else {
                    continue;
                };
                let Some(target) = self.resolve(&abs, 0) else { continue };
                // A module's re-export of its own descendants is a facade.
                let facade = named.public && target.starts_with(at);
                if target != *at && !facade && !at.starts_with(&target) {
                    edges.insert(target);
                }
            }
        }
        graph
    }
}

/// `#[cfg(test)]` items: the crate's own tests may use any layer.
fn test_only(item: &syn::Item) -> bool {
    let attrs = match item {
        syn::Item::Mod(m) => &m.attrs,
        syn::Item::Fn(f) => &f.attrs,
        syn::Item::Use(u) => &u.attrs,
        syn::Item::Impl(i) => &i.attrs,
        _ => return false,
    };
    attrs
        .iter()
        .any(|a| a.path().is_ident("cfg") && a.meta.to_token_stream().to_string().contains("(test)"))
}

fn item_name(item: &syn::Item) -> Option<String> {
    let ident = match item {
        syn::Item::Const(i) => &i.ident,
        syn::Item::Enum(i) => &i.ident,
        syn::Item::Fn(i) => &i.sig.ident,
        syn::Item::Static(i) => &i.ident,
        syn::Item::Struct(i) => &i.ident,
        syn::Item::Trait(i) => &i.ident,
        syn::Item::TraitAlias(i) => &i.ident,
        syn::Item::Type(i) => &i.ident,
        syn::Item::Union(i) => &i.ident,
        syn::Item::Macro(i) => i.ident.as_ref()?,
        syn::Item::ExternCrate(i) => i.rename.as_ref().map(|(_, r)| r).unwrap_or(&i.ident),
        _ => return None,
    };
    Some(ident.to_string())
}

/// Every `a::b::c` path in a token stream (`$crate::x` is taken as `crate::x`).
fn collect_paths(tokens: TokenStream, out: &mut Vec<ModPath>) {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            TokenTree::Group(g) => {
                collect_paths(g.stream(), out);
                i += 1;
            }
            TokenTree::Ident(first) if is_keyword(&first.to_string()) => i += 1,
            TokenTree::Ident(first) => {
                let after_colons = i >= 2 && is_colon(&tokens[i - 1]) && is_colon(&tokens[i - 2]);
                let mut path = vec![first.to_string()];
                let mut j = i + 1;
                while j + 2 < tokens.len()
                    && is_colon(&tokens[j])
                    && is_colon(&tokens[j + 1])
                    && matches!(tokens[j + 2], TokenTree::Ident(_))
                {
                    path.push(tokens[j + 2].to_string());
                    j += 3;
                }
                // `::fastrs::x` starts a path; `a::b` inside a longer one
                // was taken with its head.
                let continues = after_colons
                    && i >= 3
                    && matches!(&tokens[i - 3], TokenTree::Ident(id) if !is_keyword(&id.to_string()));
                if path.len() > 1 && !continues {
                    out.push(path);
                }
                i = j;
            }
            _ => i += 1,
        }
    }
}

/// Keywords that may stand before `::` without starting a path
/// (`use ::x`, `pub(in ::x)`); `crate`, `self` and `super` start one.
fn is_keyword(ident: &str) -> bool {
    matches!(
        ident,
        "as" | "dyn"
            | "for"
            | "impl"
            | "in"
            | "let"
            | "mut"
            | "pub"
            | "ref"
            | "return"
            | "static"
            | "type"
            | "use"
            | "where"
    )
}

fn is_colon(t: &TokenTree) -> bool {
    matches!(t, TokenTree::Punct(p) if p.as_char() == ':')
}

/// Strongly connected components with more than one module (Tarjan).
fn circles<N: Ord + Clone>(graph: &BTreeMap<N, BTreeSet<N>>) -> Vec<Vec<N>> {
    struct State<'g, N> {
        graph: &'g BTreeMap<N, BTreeSet<N>>,
        index: BTreeMap<&'g N, (usize, usize)>,
        stack: Vec<&'g N>,
        on_stack: BTreeSet<&'g N>,
        found: Vec<Vec<N>>,
    }
    fn visit<'g, N: Ord + Clone>(s: &mut State<'g, N>, node: &'g N) {
        let n = s.index.len();
        s.index.insert(node, (n, n));
        s.stack.push(node);
        s.on_stack.insert(node);
        for next in s.graph.get(node).into_iter().flatten() {
            let Some((next, _)) = s.graph.get_key_value(next) else {
                continue;
            };
            if !s.index.contains_key(next) {
                visit(s, next);
                let low = s.index[next].1.min(s.index[node].1);
                s.index.get_mut(node).unwrap().1 = low;
            } else if s.on_stack.contains(next) {
                let low = s.index[next].0.min(s.index[node].1);
                s.index.get_mut(node).unwrap().1 = low;
            }
        }
        let (idx, low) = s.index[node];
        if idx == low {
            let mut component = Vec::new();
            while let Some(top) = s.stack.pop() {
                s.on_stack.remove(top);
                component.push(top.clone());
                if top == node {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.found.push(component);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in graph.keys() {
        if !s.index.contains_key(node) {
            visit(&mut s, node);
        }
    }
    s.found
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn show(circles: &[Vec<ModPath>], graph: &BTreeMap<ModPath, BTreeSet<ModPath>>) -> String {
    let name = |m: &ModPath| {
        if m.is_empty() {
            "crate".to_string()
        } else {
            m.join("::")
        }
    };
    let mut out = String::new();
    for circle in circles {
        out += "circle:\n";
        for m in circle {
            let inside: Vec<_> = graph[m].iter().filter(|t| circle.contains(t)).map(name).collect();
            out += &format!("  {} -> {}\n", name(m), inside.join(", "));
        }
    }
    out
}

fn assert_acyclic(graph: &BTreeMap<ModPath, BTreeSet<ModPath>>, what: &str) {
    let found = circles(graph);
    assert!(found.is_empty(), "{what} has import circles:\n{}", show(&found, graph));
}

#[test]
fn runtime_modules_have_no_circles() {
    let krate = Crate::load(&workspace().join("runtime/src/lib.rs"), vec!["crate", "fastrs"]);
    assert!(krate.modules.len() > 40, "read {} modules", krate.modules.len());
    let graph = krate.graph();
    // Known edges, seen through `use` groups, re-exports and code paths.
    let m = |s: &str| s.split("::").map(String::from).collect::<ModPath>();
    for (from, to) in [
        ("codec::number", "wire::varint"),
        ("json::wkt", "well_known"),
        ("view", "message::decode"),
    ] {
        assert!(graph[&m(from)].contains(&m(to)), "{from} -> {to} not seen");
    }
    assert_acyclic(&graph, "the runtime");
}

/// The runtime's layers, lowest first (see ARCHITECTURE.md). A module of
/// one may use the layers before it, never one after it or the modules
/// above them all (formats, well-known types, generated code, `__private`).
const LAYERS: &[&str] = &[
    "wire", "schema", "message", "codec", "field", "view", "outline", "table",
];

#[test]
fn runtime_layers_only_depend_downward() {
    let krate = Crate::load(&workspace().join("runtime/src/lib.rs"), vec!["crate", "fastrs"]);
    let rank = |m: &ModPath| {
        let top = m.first().map(String::as_str).unwrap_or("");
        LAYERS.iter().position(|l| *l == top)
    };
    let mut upward = Vec::new();
    for (from, targets) in krate.graph() {
        let Some(level) = rank(&from) else { continue };
        for to in targets {
            if rank(&to).is_none_or(|r| r > level) {
                upward.push(format!("{} -> {}", from.join("::"), to.join("::")));
            }
        }
    }
    assert!(upward.is_empty(), "upward dependencies:\n{}", upward.join("\n"));
}

#[test]
fn generator_modules_have_no_circles() {
    let krate = Crate::load(&workspace().join("protoc-gen-fastrs/src/lib.rs"), vec!["crate"]);
    assert!(krate.modules.len() > 25, "read {} modules", krate.modules.len());
    let graph = krate.graph();
    let m = |s: &str| s.split("::").map(String::from).collect::<ModPath>();
    for (from, to) in [
        ("emit::read", "model::plan"),
        ("emit::view", "emit::tokens"),
        ("builder", "descriptors"),
    ] {
        assert!(graph[&m(from)].contains(&m(to)), "{from} -> {to} not seen");
    }
    assert_acyclic(&graph, "the generator");
}

/// The workspace's members, from its manifest.
fn members() -> Vec<String> {
    let manifest = std::fs::read_to_string(workspace().join("Cargo.toml")).unwrap();
    let line = manifest
        .lines()
        .find(|l| l.trim_start().starts_with("members"))
        .expect("a members list");
    let list = &line[line.find('[').unwrap() + 1..line.rfind(']').unwrap()];
    list.split(',')
        .map(|m| m.trim().trim_matches('"').to_owned())
        .filter(|m| !m.is_empty())
        .collect()
}

/// The roots of a member's crates: its library, its binary and each of
/// `src/bin/`.
fn crate_roots(member: &str) -> Vec<PathBuf> {
    let src = workspace().join(member).join("src");
    let mut roots: Vec<PathBuf> = ["lib.rs", "main.rs"]
        .iter()
        .map(|f| src.join(f))
        .filter(|p| p.exists())
        .collect();
    if let Ok(bins) = std::fs::read_dir(src.join("bin")) {
        let mut bins: Vec<PathBuf> = bins.map(|e| e.unwrap().path()).collect();
        bins.sort();
        roots.extend(bins.into_iter().filter(|p| p.extension().is_some_and(|e| e == "rs")));
    }
    roots
}

/// Every crate of the workspace (the published ones, the CLI, the test and
/// bench support crates, the examples) has no circles.
#[test]
fn every_crate_has_no_circles() {
    let mut crates = 0;
    let mut found = Vec::new();
    for member in members() {
        for root in crate_roots(&member) {
            // The runtime and fastrs-tonic name themselves (`extern crate
            // self as ...`), for the generated code they hold.
            let krate = Crate::load(&root, vec!["crate", "fastrs", "fastrs_tonic"]);
            crates += 1;
            let circles = circles(&krate.graph());
            if !circles.is_empty() {
                let at = root.strip_prefix(workspace()).unwrap_or(&root).display().to_string();
                found.push(format!("{at}:\n{}", show(&circles, &krate.graph())));
            }
        }
    }
    assert!(crates > 25, "read {crates} crates");
    assert!(found.is_empty(), "import circles:\n{}", found.join("\n"));
}

/// The checker itself finds a circle and a resolution through re-exports.
#[test]
fn the_checker_sees_circles() {
    let mut graph: BTreeMap<ModPath, BTreeSet<ModPath>> = BTreeMap::new();
    let m = |s: &str| vec![s.to_string()];
    graph.entry(m("a")).or_default().insert(m("b"));
    graph.entry(m("b")).or_default().insert(m("c"));
    graph.entry(m("c")).or_default().insert(m("a"));
    graph.entry(m("d")).or_default().insert(m("a"));
    assert_eq!(circles(&graph), vec![vec![m("a"), m("b"), m("c")]]);

    let mut paths = Vec::new();
    collect_paths(
        "use ::fastrs::a::B; x = $crate::c::d(super::e::F);".parse().unwrap(),
        &mut paths,
    );
    let flat: Vec<String> = paths.iter().map(|p| p.join("::")).collect();
    assert_eq!(flat, ["fastrs::a::B", "crate::c::d", "super::e::F"]);
}
