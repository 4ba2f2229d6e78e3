//! The parsed expression: CEL's abstract syntax (`syntax.proto`'s `Expr`),
//! with macros already expanded into comprehensions.

use std::boxed::Box;
use std::string::String;
use std::sync::Arc;
use std::vec::Vec;

/// The accumulator's name in the comprehensions macros expand into
/// (what code generators match to recognize a macro).
pub const ACCUMULATOR: &str = "@result";

/// An expression: its id (unique within one parse, used by the checker's
/// tables), where it starts in the source (a byte offset), and its kind.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// Unique within the expression tree.
    pub id: u32,
    /// Byte offset of the expression's first token in the source.
    pub at: u32,
    /// What it is.
    pub kind: ExprKind,
}

/// The kinds of expressions.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A literal.
    Const(Const),
    /// A name: a variable, or part of a qualified name the checker resolves.
    Ident(String),
    /// `operand.field`; with `test`, the `has(operand.field)` macro.
    Select {
        /// The message or map.
        operand: Box<Expr>,
        /// The field or key.
        field: String,
        /// True for `has()`: a presence test rather than a read.
        test: bool,
    },
    /// A call: `f(args)`, `target.f(args)`, or an operator (`_+_`, `_[_]`,
    /// `!_`, `_?_:_`, ...).
    Call {
        /// The receiver of a method call.
        target: Option<Box<Expr>>,
        /// The function or operator name.
        function: String,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// `[a, b, ?c]`: the elements, and the indices of optional ones.
    List {
        /// The elements.
        elements: Vec<Expr>,
        /// Indices of `?`-marked elements.
        optional: Vec<usize>,
    },
    /// `{k: v, ?k2: v2}`.
    Map(Vec<Entry>),
    /// `Type{field: value}`: a message (or well-known type) literal.
    Struct {
        /// The type name as written (resolved by the checker).
        type_name: String,
        /// The field initializers.
        fields: Vec<FieldInit>,
    },
    /// A fold over a list or map, what macros expand into.
    Comprehension(Box<Comprehension>),
}

/// One entry of a map literal.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The entry's id.
    pub id: u32,
    /// The key.
    pub key: Expr,
    /// The value.
    pub value: Expr,
    /// `?key: value`: set only if the value is a present optional.
    pub optional: bool,
}

/// One field of a message literal.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldInit {
    /// The initializer's id.
    pub id: u32,
    /// The field's name.
    pub field: String,
    /// Its value.
    pub value: Expr,
    /// `?field: value`: set only if the value is a present optional.
    pub optional: bool,
}

/// `iter_range.fold(iter_var[, iter_var2], accu_var = accu_init, loop_condition, loop_step, result)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Comprehension {
    /// The loop variable (for a list: the element, or with two variables
    /// the index; for a map: the key).
    pub iter_var: String,
    /// The second loop variable, if any (a list's element, a map's value).
    pub iter_var2: Option<String>,
    /// What is iterated.
    pub iter_range: Expr,
    /// The accumulator's name.
    pub accu_var: String,
    /// Its initial value.
    pub accu_init: Expr,
    /// Evaluated before each step; the loop stops when it is false.
    pub loop_condition: Expr,
    /// The accumulator's next value.
    pub loop_step: Expr,
    /// The result, from the accumulator.
    pub result: Expr,
}

/// A literal value.
#[derive(Clone, Debug, PartialEq)]
pub enum Const {
    /// `null`.
    Null,
    /// `true`, `false`.
    Bool(bool),
    /// `1`, `-2`, `0x10`.
    Int(i64),
    /// `1u`.
    Uint(u64),
    /// `1.5`, `1e3`.
    Double(f64),
    /// `"text"`.
    String(Arc<str>),
    /// `b"bytes"`.
    Bytes(Arc<[u8]>),
}

impl Expr {
    /// The name this expression spells if it is an identifier or a chain of
    /// selections on one (`a.b.c`), for qualified names.
    #[must_use]
    pub fn qualified_name(&self) -> Option<String> {
        match &self.kind {
            ExprKind::Ident(name) => Some(name.clone()),
            // A quoted name with dots (`` m.`pkg.ext` ``) is one segment.
            ExprKind::Select {
                operand,
                field,
                test: false,
            } if !field.contains('.') => {
                let mut name = operand.qualified_name()?;
                name.push('.');
                name.push_str(field);
                Some(name)
            }
            _ => None,
        }
    }

    /// Visits every expression of the tree, this one first.
    pub fn walk<'a>(&'a self, visit: &mut impl FnMut(&'a Expr)) {
        visit(self);
        match &self.kind {
            ExprKind::Const(_) | ExprKind::Ident(_) => {}
            ExprKind::Select { operand, .. } => operand.walk(visit),
            ExprKind::Call { target, args, .. } => {
                if let Some(t) = target {
                    t.walk(visit);
                }
                for a in args {
                    a.walk(visit);
                }
            }
            ExprKind::List { elements, .. } => elements.iter().for_each(|e| e.walk(visit)),
            ExprKind::Map(entries) => {
                for e in entries {
                    e.key.walk(visit);
                    e.value.walk(visit);
                }
            }
            ExprKind::Struct { fields, .. } => fields.iter().for_each(|f| f.value.walk(visit)),
            ExprKind::Comprehension(c) => {
                c.iter_range.walk(visit);
                c.accu_init.walk(visit);
                c.loop_condition.walk(visit);
                c.loop_step.walk(visit);
                c.result.walk(visit);
            }
        }
    }
}

/// Operator function names, as CEL's standard definitions name them.
pub mod op {
    /// `a ? b : c`.
    pub const CONDITIONAL: &str = "_?_:_";
    /// `a && b`.
    pub const AND: &str = "_&&_";
    /// `a || b`.
    pub const OR: &str = "_||_";
    /// `!a`.
    pub const NOT: &str = "!_";
    /// `-a`.
    pub const NEGATE: &str = "-_";
    /// `a == b`.
    pub const EQUALS: &str = "_==_";
    /// `a != b`.
    pub const NOT_EQUALS: &str = "_!=_";
    /// `a < b`.
    pub const LESS: &str = "_<_";
    /// `a <= b`.
    pub const LESS_EQUALS: &str = "_<=_";
    /// `a > b`.
    pub const GREATER: &str = "_>_";
    /// `a >= b`.
    pub const GREATER_EQUALS: &str = "_>=_";
    /// `a + b`.
    pub const ADD: &str = "_+_";
    /// `a - b`.
    pub const SUBTRACT: &str = "_-_";
    /// `a * b`.
    pub const MULTIPLY: &str = "_*_";
    /// `a / b`.
    pub const DIVIDE: &str = "_/_";
    /// `a % b`.
    pub const MODULO: &str = "_%_";
    /// `a in b`.
    pub const IN: &str = "@in";
    /// `a[b]`.
    pub const INDEX: &str = "_[_]";
    /// `a[?b]`.
    pub const OPT_INDEX: &str = "_[?_]";
    /// `a.?b`.
    pub const OPT_SELECT: &str = "_?._";
    /// The loop condition of `all` and `exists`: false only for `false`
    /// (errors and unknowns keep the loop going).
    pub const NOT_STRICTLY_FALSE: &str = "@not_strictly_false";
    /// `cel.block`'s call.
    pub const BLOCK: &str = "cel.@block";
}
