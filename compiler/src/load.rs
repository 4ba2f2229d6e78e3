//! Loading: each requested file and its imports, read, parsed and numbered
//! dependencies first, then linked and their options interpreted in that
//! order, so that a file's imports are complete when it is linked.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use fastrs::descriptor as d;
use fastrs::reflect::DescriptorPool;
use fastrs::Message;

use crate::error::{Diagnostic, Diagnostics, Error, Pos, Problem};
use crate::options::Pass;
use crate::parse::Locations;
use crate::schema::Schema;
use crate::source_info;
use crate::symbols::Symbols;
use crate::Compiler;

/// The files loaded, numbered dependencies first.
pub struct Loaded {
    pub files: Vec<d::FileDescriptorProto>,
    /// Where each compiled file's parts are written (none for the
    /// well-known types taken ready-made).
    pub locations: Vec<Option<Locations>>,
    by_name: HashMap<String, usize>,
}

impl Loaded {
    /// The files of the set protoc writes for `names`: with `imports`,
    /// everything they import too; each file after its imports (regular,
    /// then `import option`).
    pub fn order(&self, names: &[String], imports: bool) -> Vec<usize> {
        let requested: Vec<usize> = names.iter().filter_map(|n| self.by_name.get(n).copied()).collect();
        let mut seen = HashSet::new();
        if !imports {
            // Files not asked for count as written already.
            seen.extend((0..self.files.len()).filter(|i| !requested.contains(i)));
        }
        let mut order = Vec::new();
        for index in requested {
            self.visit(index, &mut seen, &mut order);
        }
        order
    }

    fn visit(&self, index: usize, seen: &mut HashSet<usize>, order: &mut Vec<usize>) {
        if !seen.insert(index) {
            return;
        }
        let file = &self.files[index];
        for dependency in file.dependency.iter().chain(&file.option_dependency) {
            if let Some(&dep) = self.by_name.get(&**dependency) {
                self.visit(dep, seen, order);
            }
        }
        order.push(index);
    }
}

/// The files protoc ships beside itself (the well-known types,
/// descriptor.proto, the language features), and protovalidate's
/// `buf/validate/validate.proto`, as protoc compiles them with source info,
/// for imports no include directory holds. `make wkt` writes the sets;
/// tests check they are current.
static WELL_KNOWN: LazyLock<HashMap<String, d::FileDescriptorProto>> = LazyLock::new(|| {
    [&include_bytes!("well_known.pb")[..], &include_bytes!("validate.pb")[..]]
        .into_iter()
        .flat_map(|set| d::FileDescriptorSet::decode(set).unwrap_or_default().file)
        .map(|f| (f.name.as_deref().unwrap_or("").to_owned(), f))
        .collect()
});

struct Loader<'a> {
    compiler: &'a Compiler,
    files: Vec<d::FileDescriptorProto>,
    /// Where each file's parts are written (for a ready-made file, only its
    /// source info).
    locations: Vec<Option<Locations>>,
    /// Whether each file was compiled here, not taken ready-made.
    compiled: Vec<bool>,
    by_name: HashMap<String, usize>,
    /// Files whose imports are being loaded (with where each import is
    /// written), to catch import cycles.
    stack: Vec<(String, HashMap<String, Pos>)>,
    /// Files that failed, so that each is reported once.
    failed: HashSet<String>,
    symbols: Symbols,
    errors: Vec<Diagnostic>,
    /// The files as a descriptor pool, once their built-in options are
    /// interpreted: for custom aggregate values and custom options.
    pool: Option<DescriptorPool>,
}

/// Loads `names` and their imports, then links them.
pub fn load(compiler: &Compiler, names: &[String]) -> Result<Loaded, Error> {
    let mut loader = Loader {
        compiler,
        files: Vec::new(),
        locations: Vec::new(),
        compiled: Vec::new(),
        by_name: HashMap::new(),
        stack: Vec::new(),
        failed: HashSet::new(),
        symbols: Symbols::default(),
        errors: Vec::new(),
        pool: None,
    };
    for name in names {
        loader.load(name);
    }
    if loader.errors.is_empty() {
        loader.link_all();
    }
    if !loader.errors.is_empty() {
        return Err(Error::new(loader.errors));
    }
    loader.strip_source_options();
    Ok(Loaded {
        files: loader.files,
        locations: loader.locations,
        by_name: loader.by_name,
    })
}

impl Loader<'_> {
    /// Loads `name` and its imports; its index, or `None` if it failed.
    fn load(&mut self, name: &str) -> Option<usize> {
        if let Some(&index) = self.by_name.get(name) {
            return Some(index);
        }
        if self.failed.contains(name) {
            return None;
        }
        if let Some(at) = self.stack.iter().position(|(n, _)| n == name) {
            let mut cycle: Vec<&str> = self.stack[at..].iter().map(|(n, _)| n.as_str()).collect();
            cycle.push(name);
            let next = cycle[1];
            let (file, imports) = &self.stack[at];
            self.errors.push(Diagnostic {
                file: file.clone(),
                pos: imports.get(next).copied(),
                message: format!("File recursively imports itself: {}", cycle.join(" -> ")),
            });
            return None;
        }
        let Some((file, locations, compiled)) = self.read(name) else {
            self.failed.insert(name.to_owned());
            return None;
        };
        let imports = locations.as_ref().map(|l| l.imports.clone()).unwrap_or_default();
        self.stack.push((name.to_owned(), imports));
        let imports: Vec<String> = file
            .dependency
            .iter()
            .chain(&file.option_dependency)
            .map(|d| d.to_string())
            .collect();
        let mut ok = true;
        for import in imports {
            if self.load(&import).is_none() {
                ok = false;
                self.errors.push(Diagnostic {
                    file: name.to_owned(),
                    pos: None,
                    message: format!("Import \"{import}\" was not found or had errors."),
                });
            }
        }
        self.stack.pop();
        if !ok {
            self.failed.insert(name.to_owned());
            return None;
        }
        let index = self.files.len();
        let mut problems = Vec::new();
        self.symbols.declare_file(index, &file, &mut problems);
        self.files.push(file);
        self.locations.push(locations);
        self.compiled.push(compiled);
        self.report(index, problems);
        self.by_name.insert(name.to_owned(), index);
        Some(index)
    }

    /// The file `name` parsed (`true`), or ready-made for a well-known type.
    fn read(&mut self, name: &str) -> Option<(d::FileDescriptorProto, Option<Locations>, bool)> {
        match self.compiler.read(name) {
            Some(Ok(text)) => {
                let mut diagnostics = Diagnostics::new(name);
                let parsed = crate::parse::parse(name, &text, &mut diagnostics);
                self.errors.extend(diagnostics.list);
                parsed.map(|p| (p.file, Some(p.locations), true))
            }
            Some(Err(e)) => {
                self.errors.push(Diagnostic {
                    file: name.to_owned(),
                    pos: None,
                    message: e.to_string(),
                });
                None
            }
            None => match WELL_KNOWN.get(name) {
                Some(file) => {
                    let mut file = file.clone();
                    let list = file
                        .source_code_info
                        .take()
                        .map(|info| info.location)
                        .unwrap_or_default();
                    Some((
                        file,
                        Some(Locations {
                            list,
                            ..Locations::default()
                        }),
                        false,
                    ))
                }
                None => {
                    self.errors.push(Diagnostic {
                        file: name.to_owned(),
                        pos: None,
                        message: "File not found.".into(),
                    });
                    None
                }
            },
        }
    }

    /// Builds every compiled file as protoc does, in passes over all of
    /// them: link names; interpret built-in options (features among them);
    /// then, with one pool of the files, custom options; then check. Each
    /// file's problems are reported in order, and a file whose imports had
    /// errors is reported as protoc reports it, and not built further.
    fn link_all(&mut self) {
        let count = self.files.len();
        let mut problems: Vec<Vec<Problem>> = Vec::with_capacity(count);
        for index in 0..count {
            let mut found = Vec::new();
            if self.compiled[index] {
                let visible = self.visible(index);
                found = crate::link::link(&mut self.files[index], index, &self.symbols, &visible);
            }
            problems.push(found);
        }
        let mut failed = self.failures(&problems);
        for index in 0..count {
            if self.compiled[index] && !failed[index] {
                problems[index] = self.interpret(index, Pass::BuiltIn, None);
            }
        }
        failed = self.failures(&problems);
        let built = (0..count)
            .filter(|&i| self.compiled[i] && !failed[i])
            .collect::<Vec<_>>();
        if built
            .into_iter()
            .any(|i| crate::retention::has_custom(&mut self.files[i]))
        {
            self.pool = crate::retention::pool(&self.files, &failed, &crate::schema::BUILT_IN);
        }
        for index in 0..count {
            if self.compiled[index] && !failed[index] {
                let pool = self.pool.take();
                problems[index] = self.interpret(index, Pass::Custom, pool.as_ref());
                self.pool = pool;
                if problems[index].is_empty() {
                    problems[index] = self.check(index);
                }
            }
        }
        self.report_all(problems);
    }

    /// Which files failed: with problems of their own or in an import.
    fn failures(&self, problems: &[Vec<Problem>]) -> Vec<bool> {
        let mut failed = vec![false; self.files.len()];
        for index in 0..self.files.len() {
            let imports_failed = self.imports_of(index).iter().any(|&dep| failed[dep]);
            failed[index] = !problems[index].is_empty() || imports_failed;
        }
        failed
    }

    /// The indices of the files `index` imports (options imports too).
    fn imports_of(&self, index: usize) -> Vec<usize> {
        let file = &self.files[index];
        let names = file.dependency.iter().chain(&file.option_dependency);
        names.filter_map(|name| self.by_name.get(&**name).copied()).collect()
    }

    /// One pass of option interpretation over the file at `index`.
    fn interpret(&mut self, index: usize, pass: Pass, pool: Option<&DescriptorPool>) -> Vec<Problem> {
        let visible = self.visible(index);
        let written = crate::options::take(&mut self.files[index], pass);
        let schema = Schema::new(&self.files, (index, &self.files[index]), &self.symbols, &visible).with_pool(pool);
        let mut interpreted = crate::options::interpret(&written, &schema);
        let problems = crate::options::apply(&mut self.files[index], &interpreted);
        interpreted.problems.extend(problems);
        if let Some(locations) = &mut self.locations[index] {
            source_info::move_options(&mut locations.list, &interpreted.moved);
        }
        interpreted.problems
    }

    /// protoc's checks of the built file at `index`.
    fn check(&mut self, index: usize) -> Vec<Problem> {
        let visible = self.visible(index);
        let schema = Schema::new(&self.files, (index, &self.files[index]), &self.symbols, &visible);
        let mut problems = crate::check::check(&self.files[index], &schema);
        let edition = self.files[index].edition.map_or(0, |e| e as i32);
        problems.extend(crate::check::targets_and_editions(&mut self.files[index], edition));
        problems
    }

    /// Reports each file's problems in order; a file whose import failed
    /// gets protoc's line for that instead.
    fn report_all(&mut self, problems: Vec<Vec<Problem>>) {
        let mut failed = vec![false; self.files.len()];
        for (index, found) in problems.into_iter().enumerate() {
            let broken = self.imports_of(index).into_iter().find(|&dep| failed[dep]);
            if let Some(broken) = broken {
                let import = self.files[broken].name.as_deref().unwrap_or("").to_owned();
                let pos = self.locations[index]
                    .as_ref()
                    .and_then(|l| l.imports.get(&import).copied());
                let file = self.files[index].name.as_deref().unwrap_or("").to_owned();
                let message = format!("Import \"{import}\" was not found or had errors.");
                self.errors.push(Diagnostic { file, pos, message });
                failed[index] = true;
                continue;
            }
            failed[index] = !found.is_empty();
            self.report(index, found);
        }
    }

    /// Places each problem in the file at `index`, as protoc reports it.
    fn report(&mut self, index: usize, problems: Vec<Problem>) {
        let name = self.files[index].name.as_deref().unwrap_or("").to_owned();
        for problem in problems {
            let pos = self.locations[index]
                .as_ref()
                .and_then(|l| l.find(&problem.path, problem.at));
            self.errors.push(Diagnostic {
                file: name.clone(),
                pos,
                message: problem.message,
            });
        }
    }

    /// Writes options as protoc writes descriptor sets (see `retention`),
    /// reading custom options with the pool of the files.
    fn strip_source_options(&mut self) {
        let pool = self.pool.take();
        let compiled = self.files.iter_mut().zip(&mut self.locations).zip(&self.compiled);
        for ((file, locations), _) in compiled.filter(|(_, compiled)| **compiled) {
            let removed = crate::retention::strip(file, pool.as_ref());
            if let Some(locations) = locations {
                source_info::remove(&mut locations.list, &removed);
            }
        }
    }

    /// The files whose names `index` may use: itself, its imports, and
    /// what those import publicly.
    fn visible(&self, index: usize) -> HashSet<usize> {
        let mut visible = HashSet::from([index]);
        let file = &self.files[index];
        for dependency in file.dependency.iter().chain(&file.option_dependency) {
            if let Some(&dep) = self.by_name.get(&**dependency) {
                self.add_public(dep, &mut visible);
            }
        }
        visible
    }

    fn add_public(&self, index: usize, visible: &mut HashSet<usize>) {
        if !visible.insert(index) {
            return;
        }
        let file = &self.files[index];
        for &public in &file.public_dependency {
            let Some(name) = file.dependency.get(public as usize) else {
                continue;
            };
            if let Some(&dep) = self.by_name.get(&**name) {
                self.add_public(dep, visible);
            }
        }
    }
}
