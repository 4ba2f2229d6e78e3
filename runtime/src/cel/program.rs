//! Compiling an expression in an [`Env`]: parsing, checking, planning,
//! and the [`Program`] that evaluates it.

use std::sync::Arc;

use super::ast::Expr;
use super::check::{self, Checked};
use super::env::Env;
use super::error::{CompileError, EvalError};
use super::eval::{self, Activation, Eval, Node};
use super::parse::parse;
use super::types::Type;
use super::value::Value;

impl Env {
    /// Parses and type-checks `src`.
    ///
    /// # Errors
    /// A syntax error, or every type error the checker finds.
    pub fn compile(&self, src: &str) -> Result<Program, CompileError> {
        let checked = self.check(src)?;
        Ok(self.program(&checked.expr, checked.result()))
    }

    /// Parses and type-checks `src`, keeping the tree and each node's type
    /// (what a code generator compiles).
    ///
    /// # Errors
    /// As [`Env::compile`].
    pub fn check(&self, src: &str) -> Result<Checked, CompileError> {
        let expr = parse(src)?;
        check::check(self, expr, src).map_err(CompileError::Check)
    }

    /// Parses `src` without checking it (types are found at run time).
    ///
    /// # Errors
    /// A syntax error.
    pub fn parse_only(&self, src: &str) -> Result<Program, CompileError> {
        let expr = parse(src)?;
        Ok(self.program(&expr, Type::Dyn))
    }

    /// The program of `expr`, a checked tree or any part of one (what a
    /// code generator evaluates to fold constant parts).
    #[must_use]
    pub fn plan(&self, expr: &Expr) -> Program {
        self.program(expr, Type::Dyn)
    }

    fn program(&self, expr: &Expr, result: Type) -> Program {
        Program {
            env: self.clone(),
            root: Arc::new(eval::plan(self, expr)),
            result,
        }
    }
}

/// A compiled expression, ready to evaluate against any activation.
#[derive(Clone)]
pub struct Program {
    env: Env,
    root: Arc<Node>,
    result: Type,
}

impl Program {
    /// Evaluates the expression with the variables of `activation`.
    ///
    /// # Errors
    /// An evaluation error: an overflow, a division by zero, a missing key
    /// or field, no overload for the operands' types, ...
    pub fn eval<'a, A: Activation<'a> + ?Sized>(&self, activation: &A) -> Result<Value<'a>, EvalError> {
        Eval::new(&self.env, &activation).eval(&self.root)
    }

    /// The type the checker inferred (`dyn` when not checked).
    #[must_use]
    pub fn result_type(&self) -> &Type {
        &self.result
    }
}

impl core::fmt::Debug for Program {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Program")
            .field("result", &self.result)
            .finish_non_exhaustive()
    }
}
