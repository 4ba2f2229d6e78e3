//! Evaluation: an expression is planned once ([`plan`]: names resolved
//! against the environment, message types found, macros already
//! comprehensions) into a tree of [`Node`]s, which [`Eval`] walks for each
//! activation.
//!
//! Errors are values while evaluating (`false && error` is `false`,
//! `true || error` is `true`, and a comprehension carries an erroneous
//! accumulator on), so every node evaluates to a `Result`.

use std::boxed::Box;
use std::string::String;
use std::sync::Arc;
use std::vec::Vec;

use super::ast::{op, Comprehension, Const, Expr, ExprKind};
use super::env::{Env, Resolved};
use super::error::EvalError;
use super::lib;
use super::literal;
use super::value::{Bin, Msg, Str, Value};
use crate::reflect::{FieldDescriptor, MessageDescriptor};

/// The variables an expression reads, by name.
pub trait Activation<'a> {
    /// The value of variable `name`, if bound.
    fn resolve(&self, name: &str) -> Option<Value<'a>>;
}

impl<'a, T: Activation<'a> + ?Sized> Activation<'a> for &T {
    fn resolve(&self, name: &str) -> Option<Value<'a>> {
        (**self).resolve(name)
    }
}

/// No variables.
impl<'a> Activation<'a> for () {
    fn resolve(&self, _: &str) -> Option<Value<'a>> {
        None
    }
}

impl<'a> Activation<'a> for [(&str, Value<'a>)] {
    fn resolve(&self, name: &str) -> Option<Value<'a>> {
        self.iter().find(|(n, _)| *n == name).map(|(_, v)| v.clone())
    }
}

impl<'a, const N: usize> Activation<'a> for [(&str, Value<'a>); N] {
    fn resolve(&self, name: &str) -> Option<Value<'a>> {
        self.as_slice().resolve(name)
    }
}

impl<'a> Activation<'a> for std::collections::HashMap<String, Value<'a>> {
    fn resolve(&self, name: &str) -> Option<Value<'a>> {
        self.get(name).cloned()
    }
}

/// A planned expression.
#[derive(Debug)]
pub(crate) enum Node {
    Const(Value<'static>),
    /// A comprehension's or block's variable, or one of the activation.
    Var(Arc<str>),
    Select {
        operand: Box<Node>,
        field: Arc<str>,
    },
    Has {
        operand: Box<Node>,
        field: Arc<str>,
    },
    /// `operand.?field`.
    OptSelect {
        operand: Box<Node>,
        field: Arc<str>,
    },
    And(Box<Node>, Box<Node>),
    Or(Box<Node>, Box<Node>),
    Conditional(Box<Node>, Box<Node>, Box<Node>),
    NotStrictlyFalse(Box<Node>),
    Call {
        function: Arc<str>,
        args: Vec<Node>,
    },
    List {
        elements: Vec<Node>,
        optional: Vec<bool>,
    },
    Map(Vec<(Node, Node, bool)>),
    Struct {
        ty: MessageDescriptor,
        fields: Vec<(FieldDescriptor, Node, bool)>,
    },
    Fold(Box<Fold>),
    Block {
        slots: Vec<Node>,
        body: Box<Node>,
    },
    /// A problem found while planning, raised when evaluated.
    Fail(EvalError),
}

#[derive(Debug)]
pub(crate) struct Fold {
    iter_var: Arc<str>,
    iter_var2: Option<Arc<str>>,
    range: Node,
    accu_var: Arc<str>,
    init: Node,
    condition: Node,
    step: Node,
    result: Node,
}

/// Plans `expr` against `env`.
pub(crate) fn plan(env: &Env, expr: &Expr) -> Node {
    Planner {
        env,
        locals: Vec::new(),
    }
    .node(expr)
}

struct Planner<'e> {
    env: &'e Env,
    /// Names bound by enclosing comprehensions and blocks.
    locals: Vec<String>,
}

impl Planner<'_> {
    fn boxed(&mut self, e: &Expr) -> Box<Node> {
        Box::new(self.node(e))
    }

    fn is_local(&self, name: &str) -> bool {
        self.locals.iter().any(|l| l == name)
    }

    fn node(&mut self, e: &Expr) -> Node {
        match &e.kind {
            ExprKind::Const(c) => Node::Const(constant(c)),
            ExprKind::Ident(name) => self.name(e).unwrap_or_else(|| Node::Var(name.as_str().into())),
            ExprKind::Select { operand, field, test } => {
                if *test {
                    return Node::Has {
                        operand: self.boxed(operand),
                        field: field.as_str().into(),
                    };
                }
                if let Some(resolved) = self.name(e) {
                    return resolved;
                }
                Node::Select {
                    operand: self.boxed(operand),
                    field: field.as_str().into(),
                }
            }
            ExprKind::Call { target, function, args } => self.call(target.as_deref(), function, args),
            ExprKind::List { elements, optional } => Node::List {
                elements: elements.iter().map(|x| self.node(x)).collect(),
                optional: (0..elements.len()).map(|i| optional.contains(&i)).collect(),
            },
            ExprKind::Map(entries) => Node::Map(
                entries
                    .iter()
                    .map(|en| (self.node(&en.key), self.node(&en.value), en.optional))
                    .collect(),
            ),
            ExprKind::Struct { type_name, fields } => self.message(type_name, fields),
            ExprKind::Comprehension(c) => self.fold(c),
        }
    }

    /// An identifier or a chain of selections naming a variable, an enum
    /// value or a type, resolved as the environment resolves names (the
    /// longest name that is declared wins; the container's scopes are
    /// tried from the innermost).
    fn name(&mut self, e: &Expr) -> Option<Node> {
        let full = e.qualified_name()?;
        let first = full.split('.').next().unwrap_or("");
        if !full.starts_with('.') && self.is_local(first) {
            // A local variable shadows every global name.
            let mut node = Node::Var(first.into());
            for part in full.split('.').skip(1) {
                node = Node::Select {
                    operand: Box::new(node),
                    field: part.into(),
                };
            }
            return Some(node);
        }
        let (resolved, used) = self.env.resolve_name(&full)?;
        let mut node = match resolved {
            Resolved::Variable(name) => Node::Var(name.into()),
            Resolved::Value(v) => Node::Const(v),
        };
        let rest: Vec<&str> = full.trim_start_matches('.').split('.').skip(used).collect();
        for part in rest {
            node = Node::Select {
                operand: Box::new(node),
                field: part.into(),
            };
        }
        Some(node)
    }

    fn call(&mut self, target: Option<&Expr>, function: &str, args: &[Expr]) -> Node {
        match (function, target, args) {
            (op::AND, None, [a, b]) => return Node::And(self.boxed(a), self.boxed(b)),
            (op::OR, None, [a, b]) => return Node::Or(self.boxed(a), self.boxed(b)),
            (op::CONDITIONAL, None, [c, t, f]) => {
                return Node::Conditional(self.boxed(c), self.boxed(t), self.boxed(f));
            }
            (op::NOT_STRICTLY_FALSE, None, [a]) => return Node::NotStrictlyFalse(self.boxed(a)),
            (op::BLOCK, None, [list, body]) => return self.block(list, body),
            (op::OPT_SELECT, None, [operand, field]) => {
                if let ExprKind::Const(Const::String(name)) = &field.kind {
                    return Node::OptSelect {
                        operand: self.boxed(operand),
                        field: name.as_ref().into(),
                    };
                }
            }
            _ => {}
        }
        // `ns.f(x)` where `ns.f` is a function and `ns` no variable.
        if let Some(t) = target {
            if let Some(ns) = t.qualified_name() {
                let qualified = format!("{}.{function}", ns.trim_start_matches('.'));
                let first = ns.split('.').next().unwrap_or("");
                if !self.is_local(first) && self.env.resolve_name(&ns).is_none() && lib::is_global(&qualified) {
                    return self.global(&qualified, args);
                }
                if !self.is_local(first) {
                    if let Some(node) = self.enum_conversion(&qualified, args) {
                        return node;
                    }
                }
            }
        }
        // A call of a type's name converts: `google.protobuf.Int64Value(1)`
        // is not CEL, but enum types convert with strong enums.
        if target.is_none() {
            if let Some(node) = self.enum_conversion(function, args) {
                return node;
            }
        }
        let mut all = Vec::with_capacity(args.len() + 1);
        if let Some(t) = target {
            all.push(self.node(t));
        }
        all.extend(args.iter().map(|a| self.node(a)));
        Node::Call {
            function: function.into(),
            args: all,
        }
    }

    /// A namespaced function's call; `proto.hasExt` and `proto.getExt`
    /// take their extension's name as written.
    fn global(&mut self, function: &str, args: &[Expr]) -> Node {
        let args = match (function, args) {
            ("proto.hasExt" | "proto.getExt", [m, ext]) if ext.qualified_name().is_some() => {
                let name = ext.qualified_name().unwrap_or_default();
                std::vec![self.node(m), Node::Const(Value::string(name.trim_start_matches('.')))]
            }
            _ => args.iter().map(|a| self.node(a)).collect(),
        };
        Node::Call {
            function: function.into(),
            args,
        }
    }

    fn enum_conversion(&mut self, function: &str, args: &[Expr]) -> Option<Node> {
        if !self.env.strong_enums_on() || args.len() != 1 {
            return None;
        }
        let e = self.env.find_enum(function)?;
        Some(Node::Call {
            function: format!("@enum:{}", e.full_name()).into(),
            args: std::vec![self.node(&args[0])],
        })
    }

    fn message(&mut self, type_name: &str, fields: &[super::ast::FieldInit]) -> Node {
        let Some(ty) = self.env.find_message(type_name) else {
            return Node::Fail(EvalError::new(format!("unknown type {type_name}")));
        };
        let mut out = Vec::with_capacity(fields.len());
        for f in fields {
            let Some(field) = ty.get_field_by_name(&f.field) else {
                return Node::Fail(EvalError::new(format!("no such field: {}", f.field)));
            };
            out.push((field, self.node(&f.value), f.optional));
        }
        Node::Struct { ty, fields: out }
    }

    fn fold(&mut self, c: &Comprehension) -> Node {
        let range = self.node(&c.iter_range);
        let init = self.node(&c.accu_init);
        self.locals.push(c.accu_var.clone());
        self.locals.push(c.iter_var.clone());
        if let Some(v) = &c.iter_var2 {
            self.locals.push(v.clone());
        }
        let condition = self.node(&c.loop_condition);
        let step = self.node(&c.loop_step);
        self.locals.pop();
        if c.iter_var2.is_some() {
            self.locals.pop();
        }
        let result = self.node(&c.result);
        self.locals.pop();
        Node::Fold(Box::new(Fold {
            iter_var: c.iter_var.as_str().into(),
            iter_var2: c.iter_var2.as_deref().map(Into::into),
            range,
            accu_var: c.accu_var.as_str().into(),
            init,
            condition,
            step,
            result,
        }))
    }

    fn block(&mut self, list: &Expr, body: &Expr) -> Node {
        let ExprKind::List { elements, .. } = &list.kind else {
            return Node::Fail(EvalError::new("cel.block takes a list literal"));
        };
        let before = self.locals.len();
        let mut slots = Vec::with_capacity(elements.len());
        for (i, e) in elements.iter().enumerate() {
            slots.push(self.node(e));
            self.locals.push(format!("@index{i}"));
        }
        let body = self.boxed(body);
        self.locals.truncate(before);
        Node::Block { slots, body }
    }
}

fn constant(c: &Const) -> Value<'static> {
    match c {
        Const::Null => Value::Null,
        Const::Bool(b) => Value::Bool(*b),
        Const::Int(v) => Value::Int(*v),
        Const::Uint(v) => Value::Uint(*v),
        Const::Double(v) => Value::Double(*v),
        Const::String(s) => Value::String(Str::Shared(s.clone())),
        Const::Bytes(b) => Value::Bytes(Bin::Shared(b.clone())),
    }
}

/// The most nested comprehensions (and calls within them) evaluate before
/// giving up: bounds the stack on hostile expressions built at run time.
const MAX_EVAL_DEPTH: usize = 4 * super::parse::MAX_DEPTH;

/// The state of one evaluation: locals, and what the functions need.
pub(crate) struct Eval<'a, 'e> {
    pub env: &'e Env,
    pub activation: &'e dyn Activation<'a>,
    locals: Vec<(Arc<str>, Result<Value<'a>, EvalError>)>,
    depth: usize,
}

type Out<'a> = Result<Value<'a>, EvalError>;

impl<'a, 'e> Eval<'a, 'e> {
    pub(crate) fn new(env: &'e Env, activation: &'e dyn Activation<'a>) -> Self {
        Eval {
            env,
            activation,
            locals: Vec::new(),
            depth: 0,
        }
    }

    pub(crate) fn eval(&mut self, node: &Node) -> Out<'a> {
        self.depth += 1;
        if self.depth > MAX_EVAL_DEPTH {
            self.depth -= 1;
            return Err(EvalError::new("evaluation nested too deeply"));
        }
        let out = self.eval_inner(node);
        self.depth -= 1;
        out
    }

    fn eval_inner(&mut self, node: &Node) -> Out<'a> {
        match node {
            Node::Const(v) => Ok(v.clone()),
            Node::Var(name) => self.var(name),
            Node::Select { operand, field } => {
                let v = self.eval(operand)?;
                lib::select(self.env, v, field)
            }
            Node::Has { operand, field } => {
                let v = self.eval(operand)?;
                lib::has(v, field)
            }
            Node::OptSelect { operand, field } => {
                let v = self.eval(operand)?;
                lib::opt_select(self.env, v, field)
            }
            Node::And(a, b) => self.and(a, b),
            Node::Or(a, b) => self.or(a, b),
            Node::Conditional(c, t, f) => match self.eval(c)? {
                Value::Bool(true) => self.eval(t),
                Value::Bool(false) => self.eval(f),
                other => Err(EvalError::no_overload(&format!("_?_:_ on {}", other.type_name()))),
            },
            Node::NotStrictlyFalse(a) => Ok(Value::Bool(!matches!(self.eval(a), Ok(Value::Bool(false))))),
            Node::Call { function, args } => {
                let mut values = Vec::with_capacity(args.len());
                for a in args {
                    values.push(self.eval(a)?);
                }
                lib::call(self.env, function, values)
            }
            Node::List { elements, optional } => self.list(elements, optional),
            Node::Map(entries) => self.map(entries),
            Node::Struct { ty, fields } => self.message(ty, fields),
            Node::Fold(f) => self.fold(f),
            Node::Block { slots, body } => {
                let before = self.locals.len();
                for (i, slot) in slots.iter().enumerate() {
                    let v = self.eval(slot);
                    self.locals.push((format!("@index{i}").into(), v));
                }
                let out = self.eval(body);
                self.locals.truncate(before);
                out
            }
            Node::Fail(e) => Err(e.clone()),
        }
    }

    fn var(&self, name: &str) -> Out<'a> {
        if let Some((_, v)) = self.locals.iter().rev().find(|(n, _)| &**n == name) {
            return v.clone();
        }
        self.activation
            .resolve(name)
            .ok_or_else(|| EvalError::new(format!("no such attribute: {name}")))
    }

    /// `a && b`: `false` if either is, whatever the other (even an error).
    fn and(&mut self, a: &Node, b: &Node) -> Out<'a> {
        let left = self.eval(a);
        if matches!(left, Ok(Value::Bool(false))) {
            return left;
        }
        let right = self.eval(b);
        match (left, right) {
            (_, Ok(Value::Bool(false))) => Ok(Value::Bool(false)),
            (Ok(Value::Bool(true)), Ok(Value::Bool(true))) => Ok(Value::Bool(true)),
            (Err(e), _) | (_, Err(e)) => Err(e),
            (Ok(x), Ok(y)) => Err(EvalError::no_overload(&format!(
                "_&&_ on {} and {}",
                x.type_name(),
                y.type_name()
            ))),
        }
    }

    /// `a || b`: `true` if either is, whatever the other (even an error).
    fn or(&mut self, a: &Node, b: &Node) -> Out<'a> {
        let left = self.eval(a);
        if matches!(left, Ok(Value::Bool(true))) {
            return left;
        }
        let right = self.eval(b);
        match (left, right) {
            (_, Ok(Value::Bool(true))) => Ok(Value::Bool(true)),
            (Ok(Value::Bool(false)), Ok(Value::Bool(false))) => Ok(Value::Bool(false)),
            (Err(e), _) | (_, Err(e)) => Err(e),
            (Ok(x), Ok(y)) => Err(EvalError::no_overload(&format!(
                "_||_ on {} and {}",
                x.type_name(),
                y.type_name()
            ))),
        }
    }

    fn list(&mut self, elements: &[Node], optional: &[bool]) -> Out<'a> {
        let mut out = Vec::with_capacity(elements.len());
        for (e, opt) in elements.iter().zip(optional) {
            let v = self.eval(e)?;
            if *opt {
                match v {
                    Value::Optional(Some(v)) => out.push(*v),
                    Value::Optional(None) => {}
                    other => {
                        return Err(EvalError::no_overload(&format!(
                            "optional list element of type {}",
                            other.type_name()
                        )))
                    }
                }
            } else {
                out.push(v);
            }
        }
        Ok(Value::list(out))
    }

    fn map(&mut self, entries: &[(Node, Node, bool)]) -> Out<'a> {
        let mut out: Vec<(Value<'a>, Value<'a>)> = Vec::with_capacity(entries.len());
        for (k, v, opt) in entries {
            let key = self.eval(k)?;
            key.check_key()?;
            let value = match (self.eval(v)?, opt) {
                (Value::Optional(None), true) => continue,
                (Value::Optional(Some(v)), true) => *v,
                (other, true) => {
                    return Err(EvalError::no_overload(&format!(
                        "optional map entry of type {}",
                        other.type_name()
                    )))
                }
                (v, false) => v,
            };
            if out.iter().any(|(k, _)| k.equals(&key)) {
                return Err(EvalError::new(format!("Failed with repeated key: {key:?}")));
            }
            out.push((key, value));
        }
        Ok(Value::map(out))
    }

    fn message(&mut self, ty: &MessageDescriptor, fields: &[(FieldDescriptor, Node, bool)]) -> Out<'a> {
        let mut values = Vec::with_capacity(fields.len());
        for (field, node, opt) in fields {
            let v = self.eval(node)?;
            let v = match (v, opt) {
                (Value::Optional(None), true) => continue,
                (Value::Optional(Some(v)), true) => *v,
                (other, true) => {
                    return Err(EvalError::no_overload(&format!(
                        "optional field of type {}",
                        other.type_name()
                    )))
                }
                (v, false) => v,
            };
            values.push((field.clone(), v));
        }
        literal::Builder { pool: ty.pool() }.build(ty, values)
    }

    fn fold(&mut self, f: &Fold) -> Out<'a> {
        let range = self.eval(&f.range)?;
        let items: Vec<(Value<'a>, Option<Value<'a>>)> = match &range {
            Value::List(list) => {
                let mut items = Vec::with_capacity(list.len());
                for (i, v) in list.iter().enumerate() {
                    let v = v?;
                    items.push(if f.iter_var2.is_some() {
                        (Value::Int(i64::try_from(i).unwrap_or(i64::MAX)), Some(v))
                    } else {
                        (v, None)
                    });
                }
                items
            }
            Value::Map(map) => map
                .entries()?
                .into_iter()
                .map(|(k, v)| (k, f.iter_var2.is_some().then_some(v)))
                .collect(),
            other => {
                return Err(EvalError::no_overload(&format!(
                    "comprehension over {}",
                    other.type_name()
                )))
            }
        };
        let before = self.locals.len();
        let init = self.eval(&f.init);
        self.locals.push((f.accu_var.clone(), init));
        let accu = self.locals.len() - 1;
        for (first, second) in items {
            self.locals.push((f.iter_var.clone(), Ok(first)));
            if let (Some(name), Some(v)) = (&f.iter_var2, second) {
                self.locals.push((name.clone(), Ok(v)));
            }
            let go_on = self.eval(&f.condition);
            if matches!(go_on, Ok(Value::Bool(false))) {
                self.locals.truncate(accu + 1);
                break;
            }
            let next = self.eval(&f.step);
            self.locals.truncate(accu + 1);
            self.locals[accu].1 = next;
        }
        let out = self.eval(&f.result);
        self.locals.truncate(before);
        out
    }
}

impl Msg<'_> {
    /// The message's descriptor.
    #[must_use]
    pub fn descriptor(&self) -> &MessageDescriptor {
        self.get().descriptor()
    }
}
