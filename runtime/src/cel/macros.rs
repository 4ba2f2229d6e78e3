//! CEL's macros, expanded while parsing as cel-go expands them: `has`,
//! the comprehensions (`all`, `exists`, `exists_one`, `map`, `filter`, and
//! their two-variable forms `transformList`, `transformMap`, ...), the
//! bindings and block extensions (`cel.bind`, `cel.block`), and the
//! optional types' `optMap` and `optFlatMap`.

use std::boxed::Box;
use std::string::String;
use std::vec::Vec;

use super::ast::{op, Comprehension, Const, Expr, ExprKind};
use super::error::ParseError;

/// What expanding a macro needs of the parser: new nodes (with fresh ids)
/// and errors at a place of the source.
pub(crate) trait Nodes {
    /// A node of `kind` starting at byte `at`.
    fn node(&mut self, at: u32, kind: ExprKind) -> Expr;

    /// An error at byte `at`.
    fn error_at(&self, at: u32, message: impl Into<String>) -> ParseError;

    /// A call of `function` with `args`, no receiver.
    fn call(&mut self, at: u32, function: &str, args: Vec<Expr>) -> Expr {
        self.node(
            at,
            ExprKind::Call {
                target: None,
                function: function.into(),
                args,
            },
        )
    }
}

/// The accumulator's name in macro expansions.
pub const RESULT: &str = super::ast::ACCUMULATOR;

/// A call `name(args)` with no receiver: `has()` or a plain call.
pub(crate) fn global_call(p: &mut impl Nodes, at: u32, name: &str, mut args: Vec<Expr>) -> Result<Expr, ParseError> {
    if name == "has" && args.len() == 1 {
        let arg = args.pop().unwrap_or_else(|| unreachable!());
        return match arg.kind {
            ExprKind::Select {
                operand,
                field,
                test: false,
            } => Ok(p.node(
                at,
                ExprKind::Select {
                    operand,
                    field,
                    test: true,
                },
            )),
            _ => Err(p.error_at(arg.at, "invalid argument to has() macro")),
        };
    }
    Ok(p.call(at, name, args))
}

/// A call `target.name(args)`: a macro if one matches, else a method call.
pub(crate) fn receiver_call(
    p: &mut impl Nodes,
    at: u32,
    target: Expr,
    name: &str,
    args: Vec<Expr>,
) -> Result<Expr, ParseError> {
    if matches!(&target.kind, ExprKind::Ident(t) if t == "cel") {
        if let Some(expanded) = cel_namespace(p, at, name, &args)? {
            return Ok(expanded);
        }
    }
    let kind = match (name, args.len()) {
        ("all", 2 | 3) => Macro::Quantifier(Quantifier::All),
        ("exists", 2 | 3) => Macro::Quantifier(Quantifier::Exists),
        ("exists_one" | "existsOne", 2 | 3) => Macro::Quantifier(Quantifier::ExistsOne),
        ("map", 2 | 3) => Macro::Map(false),
        ("filter", 2) => Macro::Filter,
        ("transformList", 3 | 4) => Macro::Map(true),
        ("transformMap", 3 | 4) => Macro::TransformMap(false),
        ("transformMapEntry", 3 | 4) => Macro::TransformMap(true),
        ("optMap", 2) => Macro::OptMap(false),
        ("optFlatMap", 2) => Macro::OptMap(true),
        _ => {
            return Ok(p.node(
                at,
                ExprKind::Call {
                    target: Some(Box::new(target)),
                    function: name.into(),
                    args,
                },
            ))
        }
    };
    match kind {
        Macro::Quantifier(q) => quantifier(p, at, target, args, q),
        Macro::Map(two) => map(p, at, target, args, two),
        Macro::Filter => filter(p, at, target, args),
        Macro::TransformMap(entry) => transform_map(p, at, target, args, entry),
        Macro::OptMap(flat) => opt_map(p, at, target, args, flat),
    }
}

/// The receiver macros.
enum Macro {
    Quantifier(Quantifier),
    /// `map`, or with two variables `transformList`.
    Map(bool),
    Filter,
    /// `transformMap`, or `transformMapEntry`.
    TransformMap(bool),
    /// `optMap`, or `optFlatMap`.
    OptMap(bool),
}

/// `cel.bind`, `cel.block`, `cel.index`, `cel.iterVar`, `cel.accuVar`.
fn cel_namespace(p: &mut impl Nodes, at: u32, name: &str, args: &[Expr]) -> Result<Option<Expr>, ParseError> {
    fn int_arg(p: &impl Nodes, name: &str, e: &Expr) -> Result<i64, ParseError> {
        match e.kind {
            ExprKind::Const(Const::Int(v)) if v >= 0 => Ok(v),
            _ => Err(p.error_at(e.at, format!("cel.{name} takes non-negative int literals"))),
        }
    }
    Ok(Some(match (name, args) {
        ("bind", [var, init, body]) => {
            let var = var_name(p, var)?;
            let empty = p.node(
                at,
                ExprKind::List {
                    elements: Vec::new(),
                    optional: Vec::new(),
                },
            );
            let condition = p.node(at, ExprKind::Const(Const::Bool(false)));
            let step = p.node(at, ExprKind::Ident(var.clone()));
            p.node(
                at,
                ExprKind::Comprehension(Box::new(Comprehension {
                    iter_var: "#unused".into(),
                    iter_var2: None,
                    iter_range: empty,
                    accu_var: var,
                    accu_init: init.clone(),
                    loop_condition: condition,
                    loop_step: step,
                    result: body.clone(),
                })),
            )
        }
        ("block", [list, body]) => {
            if !matches!(list.kind, ExprKind::List { .. }) {
                return Err(p.error_at(list.at, "cel.block requires the first arg to be a list literal"));
            }
            p.call(at, op::BLOCK, vec![list.clone(), body.clone()])
        }
        ("index", [i]) => {
            let i = int_arg(p, name, i)?;
            p.node(at, ExprKind::Ident(format!("@index{i}")))
        }
        ("iterVar", [a, b]) => {
            let (a, b) = (int_arg(p, name, a)?, int_arg(p, name, b)?);
            p.node(at, ExprKind::Ident(format!("@it:{a}:{b}")))
        }
        ("accuVar", [a, b]) => {
            let (a, b) = (int_arg(p, name, a)?, int_arg(p, name, b)?);
            p.node(at, ExprKind::Ident(format!("@ac:{a}:{b}")))
        }
        _ => return Ok(None),
    }))
}

fn var_name(p: &impl Nodes, e: &Expr) -> Result<String, ParseError> {
    match &e.kind {
        ExprKind::Ident(name) => Ok(name.clone()),
        _ => Err(p.error_at(e.at, "argument must be a simple name")),
    }
}

/// The loop variables of a one- or two-variable macro, and its other
/// arguments.
fn loop_vars(
    p: &impl Nodes,
    mut args: Vec<Expr>,
    rest: usize,
) -> Result<(String, Option<String>, Vec<Expr>), ParseError> {
    let tail = args.split_off(args.len() - rest);
    let first = var_name(p, &args[0])?;
    let second = match args.get(1) {
        Some(e) => {
            let second = var_name(p, e)?;
            if second == first {
                return Err(p.error_at(e.at, "duplicate variable name"));
            }
            Some(second)
        }
        None => None,
    };
    if first == RESULT || second.as_deref() == Some(RESULT) {
        return Err(p.error_at(args[0].at, "iteration variable overwrites accumulator variable"));
    }
    Ok((first, second, tail))
}

enum Quantifier {
    All,
    Exists,
    ExistsOne,
}

fn accu(p: &mut impl Nodes, at: u32) -> Expr {
    p.node(at, ExprKind::Ident(RESULT.into()))
}

fn constant(p: &mut impl Nodes, at: u32, c: Const) -> Expr {
    p.node(at, ExprKind::Const(c))
}

#[allow(clippy::too_many_arguments)]
fn fold(
    p: &mut impl Nodes,
    at: u32,
    range: Expr,
    vars: (String, Option<String>),
    init: Expr,
    condition: Expr,
    step: Expr,
    result: Expr,
) -> Expr {
    p.node(
        at,
        ExprKind::Comprehension(Box::new(Comprehension {
            iter_var: vars.0,
            iter_var2: vars.1,
            iter_range: range,
            accu_var: RESULT.into(),
            accu_init: init,
            loop_condition: condition,
            loop_step: step,
            result,
        })),
    )
}

fn quantifier(p: &mut impl Nodes, at: u32, range: Expr, args: Vec<Expr>, kind: Quantifier) -> Result<Expr, ParseError> {
    let (var, var2, mut rest) = loop_vars(p, args, 1)?;
    let predicate = rest.pop().unwrap_or_else(|| unreachable!());
    let (init, condition, step, result) = match kind {
        Quantifier::All => {
            let init = constant(p, at, Const::Bool(true));
            let a = accu(p, at);
            let condition = p.call(at, op::NOT_STRICTLY_FALSE, vec![a]);
            let a = accu(p, at);
            let step = p.call(at, op::AND, vec![a, predicate]);
            (init, condition, step, accu(p, at))
        }
        Quantifier::Exists => {
            let init = constant(p, at, Const::Bool(false));
            let a = accu(p, at);
            let not = p.call(at, op::NOT, vec![a]);
            let condition = p.call(at, op::NOT_STRICTLY_FALSE, vec![not]);
            let a = accu(p, at);
            let step = p.call(at, op::OR, vec![a, predicate]);
            (init, condition, step, accu(p, at))
        }
        Quantifier::ExistsOne => {
            let init = constant(p, at, Const::Int(0));
            let condition = constant(p, at, Const::Bool(true));
            let a = accu(p, at);
            let one = constant(p, at, Const::Int(1));
            let plus = p.call(at, op::ADD, vec![a, one]);
            let a = accu(p, at);
            let step = p.call(at, op::CONDITIONAL, vec![predicate, plus, a]);
            let a = accu(p, at);
            let one = constant(p, at, Const::Int(1));
            let result = p.call(at, op::EQUALS, vec![a, one]);
            (init, condition, step, result)
        }
    };
    Ok(fold(p, at, range, (var, var2), init, condition, step, result))
}

fn empty_list(p: &mut impl Nodes, at: u32) -> Expr {
    p.node(
        at,
        ExprKind::List {
            elements: Vec::new(),
            optional: Vec::new(),
        },
    )
}

/// `map(x, t)`, `map(x, p, t)`, `transformList(i, v, t)`,
/// `transformList(i, v, p, t)`.
fn map(p: &mut impl Nodes, at: u32, range: Expr, args: Vec<Expr>, two: bool) -> Result<Expr, ParseError> {
    let vars = if two { 2 } else { 1 };
    let rest = args.len() - vars;
    let (var, var2, mut rest) = loop_vars(p, args, rest)?;
    let transform = rest.pop().unwrap_or_else(|| unreachable!());
    let filter = rest.pop();
    let init = empty_list(p, at);
    let condition = constant(p, at, Const::Bool(true));
    let a = accu(p, at);
    let one = p.node(
        at,
        ExprKind::List {
            elements: vec![transform],
            optional: Vec::new(),
        },
    );
    let append = p.call(at, op::ADD, vec![a, one]);
    let step = match filter {
        Some(filter) => {
            let a = accu(p, at);
            p.call(at, op::CONDITIONAL, vec![filter, append, a])
        }
        None => append,
    };
    let result = accu(p, at);
    Ok(fold(p, at, range, (var, var2), init, condition, step, result))
}

fn filter(p: &mut impl Nodes, at: u32, range: Expr, args: Vec<Expr>) -> Result<Expr, ParseError> {
    let (var, _, mut rest) = loop_vars(p, args, 1)?;
    let predicate = rest.pop().unwrap_or_else(|| unreachable!());
    let init = empty_list(p, at);
    let condition = constant(p, at, Const::Bool(true));
    let element = p.node(at, ExprKind::Ident(var.clone()));
    let one = p.node(
        at,
        ExprKind::List {
            elements: vec![element],
            optional: Vec::new(),
        },
    );
    let a = accu(p, at);
    let append = p.call(at, op::ADD, vec![a, one]);
    let a = accu(p, at);
    let step = p.call(at, op::CONDITIONAL, vec![predicate, append, a]);
    let result = accu(p, at);
    Ok(fold(p, at, range, (var, None), init, condition, step, result))
}

/// `transformMap(k, v, t)` (and with a filter), `transformMapEntry(k, v, e)`.
fn transform_map(p: &mut impl Nodes, at: u32, range: Expr, args: Vec<Expr>, entry: bool) -> Result<Expr, ParseError> {
    let rest = args.len() - 2;
    let (var, var2, mut rest) = loop_vars(p, args, rest)?;
    let transform = rest.pop().unwrap_or_else(|| unreachable!());
    let filter = rest.pop();
    let init = p.node(at, ExprKind::Map(Vec::new()));
    let condition = constant(p, at, Const::Bool(true));
    let a = accu(p, at);
    let insert = if entry {
        p.call(at, "cel.@mapInsert", vec![a, transform])
    } else {
        let key = p.node(at, ExprKind::Ident(var.clone()));
        p.call(at, "cel.@mapInsert", vec![a, key, transform])
    };
    let step = match filter {
        Some(filter) => {
            let a = accu(p, at);
            p.call(at, op::CONDITIONAL, vec![filter, insert, a])
        }
        None => insert,
    };
    let result = accu(p, at);
    Ok(fold(p, at, range, (var, var2), init, condition, step, result))
}

/// `o.optMap(x, e)`: `o.hasValue() ? optional.of(cel.bind(x, o.value(), e)) : optional.none()`;
/// `optFlatMap` leaves out the `optional.of`.
fn opt_map(p: &mut impl Nodes, at: u32, target: Expr, args: Vec<Expr>, flat: bool) -> Result<Expr, ParseError> {
    let var = var_name(p, &args[0])?;
    let body = args.into_iter().nth(1).unwrap_or_else(|| unreachable!());
    let has_value = p.node(
        at,
        ExprKind::Call {
            target: Some(Box::new(target.clone())),
            function: "hasValue".into(),
            args: Vec::new(),
        },
    );
    let value = p.node(
        at,
        ExprKind::Call {
            target: Some(Box::new(target)),
            function: "value".into(),
            args: Vec::new(),
        },
    );
    let empty = empty_list(p, at);
    let condition = constant(p, at, Const::Bool(false));
    let step = p.node(at, ExprKind::Ident(var.clone()));
    let bound = p.node(
        at,
        ExprKind::Comprehension(Box::new(Comprehension {
            iter_var: "#unused".into(),
            iter_var2: None,
            iter_range: empty,
            accu_var: var,
            accu_init: value,
            loop_condition: condition,
            loop_step: step,
            result: body,
        })),
    );
    let then = if flat {
        bound
    } else {
        p.call(at, "optional.of", vec![bound])
    };
    let none = p.call(at, "optional.none", Vec::new());
    Ok(p.call(at, op::CONDITIONAL, vec![has_value, then, none]))
}
