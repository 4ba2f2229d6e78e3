//! The type checker: infers each expression's type from the declarations
//! of the environment (variables, message types of the pool, the standard
//! and extension functions' overloads), and reports what does not check,
//! at its line and column.
//!
//! Types unify as cel-go's do: `dyn` matches anything, a type parameter
//! binds on first use, a wrapper type accepts its primitive and `null`,
//! and the elements of a list literal join to their common type (`dyn`
//! when there is none).

use std::boxed::Box;
use std::collections::HashMap;
use std::string::String;
use std::sync::{Arc, OnceLock};
use std::vec::Vec;

use super::ast::{op, Comprehension, Const, Expr, ExprKind};
use super::env::{Env, Overload, Resolved};
use super::error::{line_column, CheckError};
use super::types::Type;
use super::value::Value;

/// A checked expression: the tree, and the type of each of its nodes.
#[derive(Clone, Debug)]
pub struct Checked {
    /// The expression.
    pub expr: Expr,
    /// The type of each node, by its id.
    pub types: HashMap<u32, Type>,
}

impl Checked {
    /// The type of the node `id` (`dyn` if unknown).
    #[must_use]
    pub fn type_of(&self, id: u32) -> Type {
        self.types.get(&id).cloned().unwrap_or(Type::Dyn)
    }

    /// The whole expression's type.
    #[must_use]
    pub fn result(&self) -> Type {
        self.type_of(self.expr.id)
    }
}

/// Checks `expr` (parsed from `src`) in `env`.
pub(crate) fn check(env: &Env, expr: Expr, src: &str) -> Result<Checked, Vec<CheckError>> {
    let mut c = Checker {
        env,
        src,
        subst: HashMap::new(),
        errors: Vec::new(),
        locals: Vec::new(),
        fresh: 0,
        types: HashMap::new(),
    };
    c.expr(&expr);
    if !c.errors.is_empty() {
        return Err(c.errors);
    }
    let types = c.types.iter().map(|(id, t)| (*id, c.finish(t))).collect();
    Ok(Checked { expr, types })
}

struct Checker<'e> {
    env: &'e Env,
    src: &'e str,
    subst: HashMap<Arc<str>, Type>,
    errors: Vec<CheckError>,
    locals: Vec<(String, Type)>,
    fresh: u32,
    /// Each node's type as inferred (variables resolved at the end).
    types: HashMap<u32, Type>,
}

impl Checker<'_> {
    fn error(&mut self, e: &Expr, message: String) -> Type {
        let (line, column) = line_column(self.src, e.at);
        self.errors.push(CheckError { message, line, column });
        Type::Error
    }

    fn fresh(&mut self) -> Type {
        self.fresh += 1;
        Type::Param(format!("_var{}", self.fresh).into())
    }

    /// `t` with bound type variables replaced, unbound ones left.
    fn resolve(&self, t: &Type) -> Type {
        match t {
            Type::Param(name) => match self.subst.get(name) {
                Some(bound) => self.resolve(bound),
                None => t.clone(),
            },
            Type::List(e) => Type::list(self.resolve(e)),
            Type::Map(k, v) => Type::map(self.resolve(k), self.resolve(v)),
            Type::Wrapper(e) => Type::Wrapper(Box::new(self.resolve(e))),
            Type::Optional(e) => Type::Optional(Box::new(self.resolve(e))),
            Type::Type(Some(e)) => Type::type_of(self.resolve(e)),
            Type::Opaque(n, ps) => Type::Opaque(n.clone(), ps.iter().map(|p| self.resolve(p)).collect()),
            other => other.clone(),
        }
    }

    /// The final type: unbound variables become `dyn`.
    fn finish(&self, t: &Type) -> Type {
        fn ground(t: Type) -> Type {
            match t {
                Type::Param(_) => Type::Dyn,
                Type::List(e) => Type::list(ground(*e)),
                Type::Map(k, v) => Type::map(ground(*k), ground(*v)),
                Type::Wrapper(e) => Type::Wrapper(Box::new(ground(*e))),
                Type::Optional(e) => Type::Optional(Box::new(ground(*e))),
                Type::Type(Some(e)) => Type::type_of(ground(*e)),
                Type::Opaque(n, ps) => Type::Opaque(n, ps.into_iter().map(ground).collect()),
                other => other,
            }
        }
        ground(self.resolve(t))
    }

    /// True if a value of type `arg` may be passed where `param` is
    /// expected, binding type variables of either.
    fn assignable(&mut self, param: &Type, arg: &Type) -> bool {
        let (param, arg) = (self.resolve(param), self.resolve(arg));
        match (&param, &arg) {
            (Type::Error, _) | (_, Type::Error) => true,
            (Type::Param(p), Type::Param(a)) if p == a => true,
            (Type::Param(p), _) => {
                if occurs(p, &arg) {
                    return false;
                }
                self.subst.insert(p.clone(), arg);
                true
            }
            (_, Type::Param(a)) => {
                if occurs(a, &param) {
                    return false;
                }
                self.subst.insert(a.clone(), param);
                true
            }
            // `Any` holds any value (packed, a primitive in its wrapper).
            (Type::Dyn | Type::Any, _) | (_, Type::Dyn | Type::Any) => true,
            // A null-typed enum (`NullValue.NULL_VALUE`) reads as an int.
            (Type::Null, Type::Int) => true,
            (a, b) if a == b => true,
            (Type::Wrapper(_), Type::Null) => true,
            (Type::Wrapper(w), other) | (other, Type::Wrapper(w)) => self.assignable(w, other),
            (Type::Message(_) | Type::Timestamp | Type::Duration | Type::Optional(_), Type::Null) => true,
            (Type::List(a), Type::List(b)) => self.assignable(a, b),
            (Type::Map(ka, va), Type::Map(kb, vb)) => self.assignable(ka, kb) && self.assignable(va, vb),
            (Type::Optional(a), Type::Optional(b)) => self.assignable(a, b),
            // Types are values of one type, `type`, whatever they denote.
            (Type::Type(_), Type::Type(_)) => true,
            (Type::Opaque(n, ps), Type::Opaque(m, qs)) if n == m && ps.len() == qs.len() => {
                ps.iter().zip(qs).all(|(p, q)| self.assignable(p, q))
            }
            _ => false,
        }
    }

    /// The type of a list or map literal's elements of types `a` and `b`,
    /// or a conditional's branches: the more general one, `dyn` if
    /// neither is.
    fn join(&mut self, a: &Type, b: &Type) -> Type {
        let (a, b) = (self.resolve(a), self.resolve(b));
        match (&a, &b) {
            _ if a == b => a,
            (Type::Error, _) => b,
            (_, Type::Error) => a,
            (Type::Dyn, _) | (_, Type::Dyn) => Type::Dyn,
            (Type::Param(_), _) | (_, Type::Param(_)) => {
                self.assignable(&a, &b);
                self.resolve(&a)
            }
            (Type::Wrapper(w), other) | (other, Type::Wrapper(w)) if **w == *other || *other == Type::Null => {
                Type::Wrapper(w.clone())
            }
            (Type::Null, other) | (other, Type::Null) if other.is_nullable() || matches!(other, Type::Optional(_)) => {
                other.clone()
            }
            (Type::List(x), Type::List(y)) => {
                let e = self.join(x, y);
                Type::list(e)
            }
            (Type::Map(kx, vx), Type::Map(ky, vy)) => {
                let k = self.join(kx, ky);
                let v = self.join(vx, vy);
                Type::map(k, v)
            }
            (Type::Optional(x), Type::Optional(y)) => {
                let e = self.join(x, y);
                Type::Optional(Box::new(e))
            }
            (Type::Opaque(n, ps), Type::Opaque(m, qs)) if n == m && ps.len() == qs.len() => {
                let joined = ps.iter().zip(qs).map(|(p, q)| self.join(p, q)).collect();
                Type::Opaque(n.clone(), joined)
            }
            _ => Type::Dyn,
        }
    }

    fn expr(&mut self, e: &Expr) -> Type {
        let t = self.expr_inner(e);
        self.types.insert(e.id, t.clone());
        t
    }

    fn expr_inner(&mut self, e: &Expr) -> Type {
        match &e.kind {
            ExprKind::Const(c) => match c {
                Const::Null => Type::Null,
                Const::Bool(_) => Type::Bool,
                Const::Int(_) => Type::Int,
                Const::Uint(_) => Type::Uint,
                Const::Double(_) => Type::Double,
                Const::String(_) => Type::String,
                Const::Bytes(_) => Type::Bytes,
            },
            ExprKind::Ident(name) => self.name(e).unwrap_or_else(|| {
                let container = self.container();
                self.error(
                    e,
                    format!("undeclared reference to '{name}' (in container '{container}')"),
                )
            }),
            ExprKind::Select { operand, field, test } => {
                if !*test {
                    if let Some(t) = self.name(e) {
                        return t;
                    }
                }
                let t = self.expr(operand);
                let field_type = self.field(e, &t, field);
                if *test {
                    Type::Bool
                } else {
                    field_type
                }
            }
            ExprKind::Call { target, function, args } => self.call(e, target.as_deref(), function, args),
            ExprKind::List { elements, optional } => {
                let mut elem = self.fresh();
                for (i, x) in elements.iter().enumerate() {
                    let mut t = self.expr(x);
                    if optional.contains(&i) {
                        t = self.unwrap_optional(x, &t);
                    }
                    elem = self.join(&elem, &t);
                }
                Type::list(elem)
            }
            ExprKind::Map(entries) => {
                let (mut k, mut v) = (self.fresh(), self.fresh());
                for en in entries {
                    let kt = self.expr(&en.key);
                    if !matches!(
                        self.resolve(&kt),
                        Type::Int | Type::Uint | Type::Bool | Type::String | Type::Dyn | Type::Param(_) | Type::Error
                    ) {
                        self.error(&en.key, format!("unsupported map key type: {kt}"));
                    }
                    let mut vt = self.expr(&en.value);
                    if en.optional {
                        vt = self.unwrap_optional(&en.value, &vt);
                    }
                    k = self.join(&k, &kt);
                    v = self.join(&v, &vt);
                }
                Type::map(k, v)
            }
            ExprKind::Struct { type_name, fields } => self.message(e, type_name, fields),
            ExprKind::Comprehension(c) => self.fold(c),
        }
    }

    fn container(&self) -> String {
        self.env
            .candidates("_")
            .first()
            .and_then(|c| c.strip_suffix("._"))
            .unwrap_or("")
            .into()
    }

    /// An optional element's value type (`[?x]` needs `x` optional).
    fn unwrap_optional(&mut self, e: &Expr, t: &Type) -> Type {
        let inner = self.fresh();
        if self.assignable(&Type::Optional(Box::new(inner.clone())), t) {
            return self.resolve(&inner);
        }
        self.error(e, format!("expected type 'optional_type' but found '{t}'"))
    }

    /// The type of a name (an identifier or a chain of selections): a
    /// local, a variable, an enum value, a type.
    fn name(&mut self, e: &Expr) -> Option<Type> {
        let full = e.qualified_name()?;
        let first = full.split('.').next().unwrap_or("");
        if !full.starts_with('.') {
            if let Some((_, t)) = self.locals.iter().rev().find(|(n, _)| n == first) {
                let mut t = t.clone();
                for part in full.split('.').skip(1) {
                    t = self.field(e, &t, part);
                }
                return Some(t);
            }
        }
        let (resolved, used) = self.env.resolve_name(&full)?;
        let mut t = match resolved {
            Resolved::Variable(name) => self.env.variable_type(&name).cloned().unwrap_or(Type::Dyn),
            Resolved::Value(Value::Type(t)) => Type::type_of(t),
            Resolved::Value(Value::Int(_)) => Type::Int,
            Resolved::Value(Value::Enum(name, _)) => Type::Enum(name),
            Resolved::Value(_) => Type::Dyn,
        };
        for part in full.trim_start_matches('.').split('.').skip(used) {
            t = self.field(e, &t, part);
        }
        Some(t)
    }

    /// The type of field `name` of a value of type `t`.
    fn field(&mut self, e: &Expr, t: &Type, name: &str) -> Type {
        match self.resolve(t) {
            Type::Message(m) => {
                let message = self.env.find_message(&format!(".{m}"));
                let field = message.and_then(|d| {
                    if name.contains('.') {
                        d.pool()
                            .get_extension_by_name(name)
                            .filter(|x| x.containing_message() == d)
                    } else {
                        d.get_field_by_name(name)
                    }
                });
                match field {
                    Some(f) => Type::of_field(&f, self.env.strong_enums_on()),
                    None => self.error(e, format!("undefined field '{name}'")),
                }
            }
            Type::Map(_, v) => *v,
            Type::Dyn | Type::Any | Type::Error | Type::Param(_) => Type::Dyn,
            Type::Optional(inner) => {
                let f = self.field(e, &inner, name);
                Type::Optional(Box::new(f))
            }
            other => self.error(e, format!("type '{other}' does not support field selection")),
        }
    }

    fn message(&mut self, e: &Expr, type_name: &str, fields: &[super::ast::FieldInit]) -> Type {
        let Some(ty) = self.env.find_message(type_name) else {
            return self.error(e, format!("undeclared reference to '{type_name}'"));
        };
        for f in fields {
            let vt = self.expr(&f.value);
            let Some(field) = ty.get_field_by_name(&f.field) else {
                self.error(&f.value, format!("undefined field '{}'", f.field));
                continue;
            };
            let mut expected = Type::of_field(&field, self.env.strong_enums_on());
            if f.optional {
                expected = Type::Optional(Box::new(expected));
            }
            if !self.assignable(&expected, &vt) || (vt == Type::Null && !field_takes_null(&expected)) {
                self.error(
                    &f.value,
                    format!(
                        "expected type of field '{}' is '{}' but provided type is '{}'",
                        f.field,
                        self.finish(&expected),
                        self.finish(&vt)
                    ),
                );
            }
        }
        Type::of_descriptor(&ty)
    }

    fn fold(&mut self, c: &Comprehension) -> Type {
        let range = self.expr(&c.iter_range);
        let (first, second) = match self.resolve(&range) {
            Type::List(e) if c.iter_var2.is_some() => (Type::Int, *e),
            Type::List(e) => (*e, Type::Dyn),
            Type::Map(k, v) => (*k, *v),
            Type::Dyn | Type::Error | Type::Param(_) => (Type::Dyn, Type::Dyn),
            other => {
                let t = self.error(
                    &c.iter_range,
                    format!("expression of type '{other}' cannot be range of a comprehension"),
                );
                (t.clone(), t)
            }
        };
        let accu = self.expr(&c.accu_init);
        let before = self.locals.len();
        self.locals.push((c.accu_var.clone(), accu.clone()));
        self.locals.push((c.iter_var.clone(), first));
        if let Some(v) = &c.iter_var2 {
            self.locals.push((v.clone(), second));
        }
        let condition = self.expr(&c.loop_condition);
        if !self.assignable(&Type::Bool, &condition) {
            self.error(&c.loop_condition, "loop condition is not a bool".into());
        }
        let step = self.expr(&c.loop_step);
        let accu = self.join(&accu, &step);
        self.locals.truncate(before);
        self.locals.push((c.accu_var.clone(), accu));
        let result = self.expr(&c.result);
        self.locals.truncate(before);
        result
    }

    fn call(&mut self, e: &Expr, target: Option<&Expr>, function: &str, args: &[Expr]) -> Type {
        match (function, args) {
            (op::AND | op::OR, [a, b]) => {
                for x in [a, b] {
                    let t = self.expr(x);
                    if !self.assignable(&Type::Bool, &t) {
                        self.error(
                            x,
                            format!("found no matching overload for '{function}' applied to '({t})'"),
                        );
                    }
                }
                return Type::Bool;
            }
            (op::CONDITIONAL, [c, t, f]) => {
                let ct = self.expr(c);
                if !self.assignable(&Type::Bool, &ct) {
                    self.error(
                        c,
                        format!("found no matching overload for '_?_:_' applied to '({ct}, ...)'"),
                    );
                }
                let (tt, ft) = (self.expr(t), self.expr(f));
                return self.join(&tt, &ft);
            }
            (op::OPT_SELECT, [operand, field]) => {
                let t = self.expr(operand);
                let ExprKind::Const(Const::String(name)) = &field.kind else {
                    return self.error(field, "optional field selection needs a field name".into());
                };
                return match self.field(e, &t, name) {
                    Type::Optional(inner) => Type::Optional(inner),
                    other => Type::Optional(Box::new(other)),
                };
            }
            (op::BLOCK, [list, body]) => return self.block(list, body),
            ("proto.hasExt" | "proto.getExt", [m, ext]) if target.is_none() => return self.extension(function, m, ext),
            _ => {}
        }
        // `ns.f(x)`: a namespaced function, if `ns` is no variable.
        if let Some(t) = target {
            if let Some(ns) = t.qualified_name() {
                let qualified = format!("{}.{function}", ns.trim_start_matches('.'));
                let is_local = self.locals.iter().any(|(n, _)| ns.split('.').next() == Some(n));
                if !is_local && self.env.strong_enums_on() && args.len() == 1 {
                    if let Some(en) = self.env.find_enum(&qualified) {
                        self.expr(&args[0]);
                        return Type::Enum(en.full_name().into());
                    }
                }
                if !is_local && self.env.resolve_name(&ns).is_none() && self.lookup(&qualified).is_some() {
                    if matches!(qualified.as_str(), "proto.hasExt" | "proto.getExt") {
                        return self.call(e, None, &qualified, args);
                    }
                    let types: Vec<Type> = args.iter().map(|a| self.expr(a)).collect();
                    return self.overloads(e, &qualified, false, &types);
                }
            }
        }
        if target.is_none() && self.env.strong_enums_on() && args.len() == 1 {
            if let Some(en) = self.env.find_enum(function) {
                self.expr(&args[0]);
                return Type::Enum(en.full_name().into());
            }
        }
        let mut types = Vec::with_capacity(args.len() + 1);
        if let Some(t) = target {
            types.push(self.expr(t));
        }
        types.extend(args.iter().map(|a| self.expr(a)));
        if function == "int" && target.is_none() && matches!(types.as_slice(), [Type::Enum(_)]) {
            return Type::Int;
        }
        self.overloads(e, function, target.is_some(), &types)
    }

    /// `proto.hasExt(msg, pkg.ext)` and `proto.getExt(msg, pkg.ext)`: the
    /// extension's name, resolved in the container.
    fn extension(&mut self, function: &str, m: &Expr, ext: &Expr) -> Type {
        self.expr(m);
        let Some(name) = ext.qualified_name() else {
            return self.error(ext, format!("{function} takes an extension's name"));
        };
        let found = self.env.descriptor_pool().and_then(|pool| {
            self.env
                .candidates(&name)
                .iter()
                .find_map(|c| pool.get_extension_by_name(c))
        });
        match (found, function) {
            (None, _) => self.error(ext, format!("undeclared reference to extension '{name}'")),
            (Some(_), "proto.hasExt") => Type::Bool,
            (Some(x), _) => Type::of_field(&x, self.env.strong_enums_on()),
        }
    }

    fn block(&mut self, list: &Expr, body: &Expr) -> Type {
        let ExprKind::List { elements, .. } = &list.kind else {
            return self.error(list, "cel.block takes a list literal".into());
        };
        let before = self.locals.len();
        for (i, x) in elements.iter().enumerate() {
            let t = self.expr(x);
            self.locals.push((format!("@index{i}"), t));
        }
        let t = self.expr(body);
        self.locals.truncate(before);
        t
    }

    fn lookup(&self, function: &str) -> Option<Vec<Overload>> {
        let mut out: Vec<Overload> = self
            .env
            .declared_functions()
            .iter()
            .filter(|d| d.name == function)
            .flat_map(|d| d.overloads.iter().cloned())
            .collect();
        if let Some(std) = standard().get(function) {
            out.extend(std.iter().cloned());
        }
        (!out.is_empty()).then_some(out)
    }

    /// Resolves a call among `function`'s overloads: the result type of
    /// the one that matches, or their join if `dyn` arguments let several.
    fn overloads(&mut self, e: &Expr, function: &str, receiver: bool, args: &[Type]) -> Type {
        if matches!(function, "math.greatest" | "math.least") {
            return self.extreme(e, function, args);
        }
        let Some(overloads) = self.lookup(function) else {
            return self.error(
                e,
                format!(
                    "undeclared reference to '{function}' (in container '{}')",
                    self.container()
                ),
            );
        };
        let mut result: Option<Type> = None;
        for o in overloads {
            if o.receiver != receiver || o.params.len() != args.len() {
                continue;
            }
            // Each overload's type parameters are its own.
            let renamed = self.instantiate(&o);
            let saved = self.subst.clone();
            if renamed.params.iter().zip(args).all(|(p, a)| self.assignable(p, a)) {
                let r = self.resolve(&renamed.result);
                result = Some(match result {
                    None => r,
                    Some(prev) => {
                        let joined = self.join(&prev, &r);
                        // Several overloads: keep what they agree on.
                        self.subst = saved;
                        joined
                    }
                });
            } else {
                self.subst = saved;
            }
        }
        match result {
            Some(t) => t,
            None => {
                let shown: Vec<String> = args.iter().map(|a| self.finish(a).to_string()).collect();
                self.error(
                    e,
                    format!(
                        "found no matching overload for '{function}' applied to '({})'",
                        shown.join(", ")
                    ),
                )
            }
        }
    }

    /// `math.greatest` and `math.least`: numbers, or one list of them.
    fn extreme(&mut self, e: &Expr, function: &str, args: &[Type]) -> Type {
        let items: Vec<Type> = match args {
            [Type::List(e)] => std::vec![(**e).clone()],
            _ => args.to_vec(),
        };
        if items.is_empty() {
            return self.error(e, format!("{function}() requires at least one argument"));
        }
        let mut t = items[0].clone();
        for i in &items {
            if !matches!(
                self.resolve(i),
                Type::Int | Type::Uint | Type::Double | Type::Dyn | Type::Error | Type::Param(_)
            ) {
                return self.error(
                    e,
                    format!("found no matching overload for '{function}' applied to '({i})'"),
                );
            }
            if *i != t {
                t = Type::Dyn;
            }
        }
        t
    }

    /// The overload with fresh names for its type parameters.
    fn instantiate(&mut self, o: &Overload) -> Overload {
        let mut names: HashMap<Arc<str>, Type> = HashMap::new();
        let mut rename = |t: &Type, this: &mut Self| rename_params(t, &mut names, &mut || this.fresh());
        let params = o.params.iter().map(|p| rename(p, self)).collect();
        let result = rename(&o.result, self);
        Overload {
            receiver: o.receiver,
            params,
            result,
        }
    }
}

fn rename_params(t: &Type, names: &mut HashMap<Arc<str>, Type>, fresh: &mut dyn FnMut() -> Type) -> Type {
    match t {
        Type::Param(p) => names.entry(p.clone()).or_insert_with(fresh).clone(),
        Type::List(e) => Type::list(rename_params(e, names, fresh)),
        Type::Map(k, v) => Type::map(rename_params(k, names, fresh), rename_params(v, names, fresh)),
        Type::Wrapper(e) => Type::Wrapper(Box::new(rename_params(e, names, fresh))),
        Type::Optional(e) => Type::Optional(Box::new(rename_params(e, names, fresh))),
        Type::Type(Some(e)) => Type::type_of(rename_params(e, names, fresh)),
        Type::Opaque(n, ps) => Type::Opaque(n.clone(), ps.iter().map(|p| rename_params(p, names, fresh)).collect()),
        other => other.clone(),
    }
}

fn occurs(name: &str, t: &Type) -> bool {
    match t {
        Type::Param(p) => &**p == name,
        Type::List(e) | Type::Wrapper(e) | Type::Optional(e) => occurs(name, e),
        Type::Map(k, v) => occurs(name, k) || occurs(name, v),
        Type::Type(Some(e)) => occurs(name, e),
        Type::Opaque(_, ps) => ps.iter().any(|p| occurs(name, p)),
        _ => false,
    }
}

/// True if a field of type `t` may be set to `null` in a literal.
fn field_takes_null(t: &Type) -> bool {
    matches!(
        t,
        Type::Message(_) | Type::Wrapper(_) | Type::Any | Type::Dyn | Type::Timestamp | Type::Duration | Type::Null
    )
}

/// Parses a type written as the declarations below write it.
fn parse_type(s: &str) -> Type {
    let s = s.trim();
    if let Some(inner) = s.strip_prefix("list(").and_then(|r| r.strip_suffix(')')) {
        return Type::list(parse_type(inner));
    }
    if let Some(inner) = s.strip_prefix("optional(").and_then(|r| r.strip_suffix(')')) {
        return Type::Optional(Box::new(parse_type(inner)));
    }
    if let Some(inner) = s.strip_prefix("type(").and_then(|r| r.strip_suffix(')')) {
        return Type::type_of(parse_type(inner));
    }
    if let Some(inner) = s.strip_prefix("map(").and_then(|r| r.strip_suffix(')')) {
        let (k, v) = split_top(inner);
        return Type::map(parse_type(k), parse_type(v));
    }
    match s {
        "int" => Type::Int,
        "uint" => Type::Uint,
        "double" => Type::Double,
        "bool" => Type::Bool,
        "string" => Type::String,
        "bytes" => Type::Bytes,
        "null" => Type::Null,
        "dyn" => Type::Dyn,
        "timestamp" => Type::Timestamp,
        "duration" => Type::Duration,
        "type" => Type::Type(None),
        param => Type::param(param),
    }
}

/// Splits `a, b` at its top-level comma.
fn split_top(s: &str) -> (&str, &str) {
    let mut depth = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => return (&s[..i], &s[i + 1..]),
            _ => {}
        }
    }
    (s, "")
}

/// The standard and extension functions' overloads, one line per
/// overload: `name: (params) -> result`, a `.` before the name for a
/// method (whose receiver is the first parameter).
const DECLARATIONS: &str = "
_==_: (A, A) -> bool
_!=_: (A, A) -> bool
_+_: (int, int) -> int
_+_: (uint, uint) -> uint
_+_: (double, double) -> double
_+_: (string, string) -> string
_+_: (bytes, bytes) -> bytes
_+_: (list(A), list(A)) -> list(A)
_+_: (timestamp, duration) -> timestamp
_+_: (duration, timestamp) -> timestamp
_+_: (duration, duration) -> duration
_-_: (int, int) -> int
_-_: (uint, uint) -> uint
_-_: (double, double) -> double
_-_: (timestamp, timestamp) -> duration
_-_: (timestamp, duration) -> timestamp
_-_: (duration, duration) -> duration
_*_: (int, int) -> int
_*_: (uint, uint) -> uint
_*_: (double, double) -> double
_/_: (int, int) -> int
_/_: (uint, uint) -> uint
_/_: (double, double) -> double
_%_: (int, int) -> int
_%_: (uint, uint) -> uint
-_: (int) -> int
-_: (double) -> double
!_: (bool) -> bool
@not_strictly_false: (bool) -> bool
@in: (A, list(A)) -> bool
@in: (A, map(A, B)) -> bool
_[_]: (list(A), int) -> A
_[_]: (map(A, B), A) -> B
_[?_]: (list(A), int) -> optional(A)
_[?_]: (map(A, B), A) -> optional(B)
_[?_]: (optional(list(A)), int) -> optional(A)
_[?_]: (optional(map(A, B)), A) -> optional(B)
_[_]: (optional(list(A)), int) -> optional(A)
_[_]: (optional(map(A, B)), A) -> optional(B)
size: (string) -> int
size: (bytes) -> int
size: (list(A)) -> int
size: (map(A, B)) -> int
.size: (string) -> int
.size: (bytes) -> int
.size: (list(A)) -> int
.size: (map(A, B)) -> int
int: (int) -> int
int: (uint) -> int
int: (double) -> int
int: (string) -> int
int: (timestamp) -> int
uint: (uint) -> uint
uint: (int) -> uint
uint: (double) -> uint
uint: (string) -> uint
double: (double) -> double
double: (int) -> double
double: (uint) -> double
double: (string) -> double
string: (string) -> string
string: (int) -> string
string: (uint) -> string
string: (double) -> string
string: (bool) -> string
string: (bytes) -> string
string: (timestamp) -> string
string: (duration) -> string
bytes: (bytes) -> bytes
bytes: (string) -> bytes
bool: (bool) -> bool
bool: (string) -> bool
timestamp: (timestamp) -> timestamp
timestamp: (string) -> timestamp
timestamp: (int) -> timestamp
duration: (duration) -> duration
duration: (string) -> duration
type: (A) -> type(A)
dyn: (A) -> dyn
.contains: (string, string) -> bool
.contains: (bytes, bytes) -> bool
.startsWith: (string, string) -> bool
.startsWith: (bytes, bytes) -> bool
.endsWith: (string, string) -> bool
.endsWith: (bytes, bytes) -> bool
.matches: (string, string) -> bool
matches: (string, string) -> bool
.getFullYear: (timestamp) -> int
.getFullYear: (timestamp, string) -> int
.getMonth: (timestamp) -> int
.getMonth: (timestamp, string) -> int
.getDate: (timestamp) -> int
.getDate: (timestamp, string) -> int
.getDayOfMonth: (timestamp) -> int
.getDayOfMonth: (timestamp, string) -> int
.getDayOfWeek: (timestamp) -> int
.getDayOfWeek: (timestamp, string) -> int
.getDayOfYear: (timestamp) -> int
.getDayOfYear: (timestamp, string) -> int
.getHours: (timestamp) -> int
.getHours: (timestamp, string) -> int
.getHours: (duration) -> int
.getMinutes: (timestamp) -> int
.getMinutes: (timestamp, string) -> int
.getMinutes: (duration) -> int
.getSeconds: (timestamp) -> int
.getSeconds: (timestamp, string) -> int
.getSeconds: (duration) -> int
.getMilliseconds: (timestamp) -> int
.getMilliseconds: (timestamp, string) -> int
.getMilliseconds: (duration) -> int
.charAt: (string, int) -> string
.indexOf: (string, string) -> int
.indexOf: (string, string, int) -> int
.lastIndexOf: (string, string) -> int
.lastIndexOf: (string, string, int) -> int
.lowerAscii: (string) -> string
.upperAscii: (string) -> string
.replace: (string, string, string) -> string
.replace: (string, string, string, int) -> string
.split: (string, string) -> list(string)
.split: (string, string, int) -> list(string)
.substring: (string, int) -> string
.substring: (string, int, int) -> string
.trim: (string) -> string
.reverse: (string) -> string
.join: (list(string)) -> string
.join: (list(string), string) -> string
.format: (string, list(dyn)) -> string
strings.quote: (string) -> string
base64.encode: (bytes) -> string
base64.decode: (string) -> bytes
math.ceil: (double) -> double
math.floor: (double) -> double
math.round: (double) -> double
math.trunc: (double) -> double
math.sqrt: (double) -> double
math.sqrt: (int) -> double
math.sqrt: (uint) -> double
math.abs: (int) -> int
math.abs: (uint) -> uint
math.abs: (double) -> double
math.sign: (int) -> int
math.sign: (uint) -> uint
math.sign: (double) -> double
math.isNaN: (double) -> bool
math.isInf: (double) -> bool
math.isFinite: (double) -> bool
math.bitAnd: (int, int) -> int
math.bitAnd: (uint, uint) -> uint
math.bitOr: (int, int) -> int
math.bitOr: (uint, uint) -> uint
math.bitXor: (int, int) -> int
math.bitXor: (uint, uint) -> uint
math.bitNot: (int) -> int
math.bitNot: (uint) -> uint
math.bitShiftLeft: (int, int) -> int
math.bitShiftLeft: (uint, int) -> uint
math.bitShiftRight: (int, int) -> int
math.bitShiftRight: (uint, int) -> uint
math.greatest: (dyn) -> dyn
math.least: (dyn) -> dyn
optional.of: (A) -> optional(A)
optional.ofNonZeroValue: (A) -> optional(A)
optional.none: () -> optional(A)
optional.unwrap: (list(optional(A))) -> list(A)
.unwrapOpt: (list(optional(A))) -> list(A)
.hasValue: (optional(A)) -> bool
.value: (optional(A)) -> A
.or: (optional(A), optional(A)) -> optional(A)
.orValue: (optional(A), A) -> A
proto.hasExt: (dyn, dyn) -> bool
proto.getExt: (dyn, dyn) -> dyn
cel.@mapInsert: (map(A, B), A, B) -> map(A, B)
cel.@mapInsert: (map(A, B), map(A, B)) -> map(A, B)
.isEmail: (string) -> bool
.isHostname: (string) -> bool
.isIp: (string) -> bool
.isIp: (string, int) -> bool
.isIpPrefix: (string) -> bool
.isIpPrefix: (string, int) -> bool
.isIpPrefix: (string, bool) -> bool
.isIpPrefix: (string, int, bool) -> bool
.isUri: (string) -> bool
.isUriRef: (string) -> bool
.isHostAndPort: (string, bool) -> bool
.unique: (list(A)) -> bool
.isNan: (double) -> bool
.isInf: (double) -> bool
.isInf: (double, int) -> bool
getField: (dyn, string) -> dyn
";

/// The comparisons: every ordered type with itself, and numbers across
/// their types.
fn comparisons(out: &mut HashMap<String, Vec<Overload>>) {
    let ordered = [
        "bool",
        "int",
        "uint",
        "double",
        "string",
        "bytes",
        "timestamp",
        "duration",
    ];
    let numbers = ["int", "uint", "double"];
    for op in [op::LESS, op::LESS_EQUALS, op::GREATER, op::GREATER_EQUALS] {
        let list = out.entry(op.into()).or_default();
        for t in ordered {
            list.push(Overload {
                receiver: false,
                params: std::vec![parse_type(t), parse_type(t)],
                result: Type::Bool,
            });
        }
        for a in numbers {
            for b in numbers {
                if a != b {
                    list.push(Overload {
                        receiver: false,
                        params: std::vec![parse_type(a), parse_type(b)],
                        result: Type::Bool,
                    });
                }
            }
        }
    }
}

fn standard() -> &'static HashMap<String, Vec<Overload>> {
    static TABLE: OnceLock<HashMap<String, Vec<Overload>>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut out: HashMap<String, Vec<Overload>> = HashMap::new();
        for line in DECLARATIONS.lines().map(str::trim).filter(|l| !l.is_empty()) {
            let (name, sig) = line.split_once(": ").unwrap_or((line, "() -> dyn"));
            let (receiver, name) = match name.strip_prefix('.') {
                Some(n) => (true, n),
                None => (false, name),
            };
            let (params, result) = sig.split_once(" -> ").unwrap_or((sig, "dyn"));
            let params = params.trim();
            let params = params
                .strip_prefix('(')
                .and_then(|p| p.strip_suffix(')'))
                .unwrap_or(params);
            let mut list = Vec::new();
            let mut rest = params;
            while !rest.trim().is_empty() {
                let (p, r) = split_top(rest);
                list.push(parse_type(p));
                rest = r;
            }
            out.entry(name.into()).or_default().push(Overload {
                receiver,
                params: list,
                result: parse_type(result),
            });
        }
        comparisons(&mut out);
        out
    })
}

#[cfg(test)]
mod tests {
    use super::super::env::Env;
    use super::*;

    fn t(src: &str) -> String {
        Env::new()
            .variable("x", Type::Int)
            .variable("s", Type::String)
            .compile(src)
            .map(|p| p.result_type().to_string())
            .unwrap_or_else(|e| e.to_string())
    }

    #[test]
    fn infers() {
        assert_eq!(t("x + 1"), "int");
        assert_eq!(t("[1, 2]"), "list(int)");
        assert_eq!(t("[1, 'a']"), "list(dyn)");
        assert_eq!(t("{'a': 1}"), "map(string, int)");
        assert_eq!(t("[]"), "list(dyn)");
        assert_eq!(t("s.size() > x"), "bool");
        assert_eq!(t("[1, 2].map(v, v * 2)"), "list(int)");
        assert_eq!(t("[1].exists(v, v > 0)"), "bool");
        assert_eq!(t("optional.of(1)"), "optional_type(int)");
        assert_eq!(t("type(1)"), "type(int)");
        assert_eq!(t("x < 1.5"), "bool");
    }

    #[test]
    fn rejects() {
        assert!(t("x + 's'").contains("found no matching overload for '_+_' applied to '(int, string)'"));
        assert!(t("y").contains("undeclared reference to 'y'"));
        assert!(t("1.0 == 1").contains("no matching overload"));
        assert!(t("s.size(").starts_with("ERROR"));
    }
}
