//! CEL's math extension: `math.greatest`, `math.least`, rounding, signs,
//! floating-point classes and bit operations.

use core::cmp::Ordering;

use super::super::error::EvalError;
use super::super::value::Value;
use super::{no_overload, Out};

pub(super) fn call<'a>(function: &str, args: &[Value<'a>]) -> Option<Out<'a>> {
    use Value::{Double as D, Int as I, Uint as U};
    Some(match (function, args) {
        ("math.greatest", _) => extreme(function, args, Ordering::Greater),
        ("math.least", _) => extreme(function, args, Ordering::Less),
        ("math.ceil", [D(d)]) => Ok(D(d.ceil())),
        ("math.floor", [D(d)]) => Ok(D(d.floor())),
        // Half away from zero, as C's `round`.
        ("math.round", [D(d)]) => Ok(D(d.round())),
        ("math.trunc", [D(d)]) => Ok(D(d.trunc())),
        ("math.sqrt", [D(d)]) => Ok(D(d.sqrt())),
        #[allow(clippy::cast_precision_loss)]
        ("math.sqrt", [I(i)]) => Ok(D((*i as f64).sqrt())),
        #[allow(clippy::cast_precision_loss)]
        ("math.sqrt", [U(u)]) => Ok(D((*u as f64).sqrt())),
        ("math.abs", [I(i)]) => i.checked_abs().map(I).ok_or_else(|| EvalError::overflow("int")),
        ("math.abs", [U(u)]) => Ok(U(*u)),
        ("math.abs", [D(d)]) => Ok(D(d.abs())),
        ("math.sign", [I(i)]) => Ok(I(i.signum())),
        ("math.sign", [U(u)]) => Ok(U(u64::from(*u > 0))),
        ("math.sign", [D(d)]) => Ok(D(if d.is_nan() || *d == 0.0 { *d } else { d.signum() })),
        ("math.isNaN", [D(d)]) => Ok(Value::Bool(d.is_nan())),
        ("math.isInf", [D(d)]) => Ok(Value::Bool(d.is_infinite())),
        ("math.isFinite", [D(d)]) => Ok(Value::Bool(d.is_finite())),
        ("math.bitAnd", [I(a), I(b)]) => Ok(I(a & b)),
        ("math.bitAnd", [U(a), U(b)]) => Ok(U(a & b)),
        ("math.bitOr", [I(a), I(b)]) => Ok(I(a | b)),
        ("math.bitOr", [U(a), U(b)]) => Ok(U(a | b)),
        ("math.bitXor", [I(a), I(b)]) => Ok(I(a ^ b)),
        ("math.bitXor", [U(a), U(b)]) => Ok(U(a ^ b)),
        ("math.bitNot", [I(a)]) => Ok(I(!a)),
        ("math.bitNot", [U(a)]) => Ok(U(!a)),
        ("math.bitShiftLeft", [I(a), I(n)]) => shift(*n).map(|n| I(if n >= 64 { 0 } else { a << n })),
        ("math.bitShiftLeft", [U(a), I(n)]) => shift(*n).map(|n| U(if n >= 64 { 0 } else { a << n })),
        // Right shifts of ints are logical, as cel-go's are.
        ("math.bitShiftRight", [I(a), I(n)]) => shift(*n).map(|n| {
            I(if n >= 64 {
                0
            } else {
                (a.cast_unsigned() >> n).cast_signed()
            })
        }),
        ("math.bitShiftRight", [U(a), I(n)]) => shift(*n).map(|n| U(if n >= 64 { 0 } else { a >> n })),
        _ => return None,
    })
}

fn shift(n: i64) -> Result<u32, EvalError> {
    if n < 0 {
        return Err(EvalError::new(format!("math.bitShift() negative offset: {n}")));
    }
    Ok(u32::try_from(n.min(64)).unwrap_or(64))
}

/// `math.greatest` and `math.least`: of their arguments, or of one list
/// argument; numbers of any type compare by value, and the winner keeps
/// its type.
fn extreme<'a>(function: &str, args: &[Value<'a>], want: Ordering) -> Out<'a> {
    let items: std::vec::Vec<Value<'a>> = match args {
        [Value::List(list)] => list.iter().collect::<Result<_, _>>()?,
        _ => args.to_vec(),
    };
    let Some(first) = items.first() else {
        return Err(EvalError::new(format!("{function}() requires at least one argument")));
    };
    let mut best = first.clone();
    for v in &items {
        let (Some(a), Some(b)) = (v.number(), best.number()) else {
            return no_overload(function, args);
        };
        if a.compare(b) == Some(want) {
            best = v.clone();
        }
    }
    if best.number().is_none() {
        return no_overload(function, args);
    }
    Ok(best)
}
