//! CEL's grammar, by recursive descent, into [`Expr`]s: operators become
//! calls by their standard names (`_+_`), and macros (`has`, `all`,
//! `exists`, `map`, `cel.bind`, ...) expand as they are read
//! ([`super::macros`]).
//!
//! Hostile input is bounded: an expression longer than
//! [`MAX_SOURCE_LEN`] bytes, or nested deeper than [`MAX_DEPTH`], is an
//! error, so that checking and evaluating the tree never exhaust the
//! stack. Chains of `&&` and `||` are built as balanced trees, as cel-go
//! builds them, so that a long chain is not a deep one.

use std::boxed::Box;
use std::string::{String, ToString};
use std::vec::Vec;

use super::ast::{op, Const, Entry, Expr, ExprKind, FieldInit};
use super::error::ParseError;
use super::lex::{tokens, Tok, Token};
use super::macros::{self, Nodes};

/// The longest source accepted, in bytes.
pub const MAX_SOURCE_LEN: usize = 100_000;

/// The deepest nesting accepted (of parentheses, calls, operators,
/// selections and literals together). Real rules nest a few levels; the
/// bound keeps parsing, checking and evaluating within a thread's stack
/// even in debug builds, whose frames are large.
pub const MAX_DEPTH: usize = 100;

/// Parses `src` into an expression.
///
/// # Errors
/// A syntax error, with where it is.
pub fn parse(src: &str) -> Result<Expr, ParseError> {
    if src.len() > MAX_SOURCE_LEN {
        return Err(ParseError::new(
            src,
            0,
            format!(
                "expression of {} bytes is longer than the limit of {MAX_SOURCE_LEN}",
                src.len()
            ),
        ));
    }
    let mut parser = Parser {
        src,
        tokens: tokens(src)?,
        pos: 0,
        next_id: 1,
        depth: 0,
    };
    let expr = parser.expr()?;
    match parser.peek() {
        Tok::End => Ok(expr),
        _ => Err(parser.error_here("extraneous input")),
    }
}

pub(crate) struct Parser<'a> {
    src: &'a str,
    tokens: Vec<Token>,
    pos: usize,
    next_id: u32,
    depth: usize,
}

impl Nodes for Parser<'_> {
    fn node(&mut self, at: u32, kind: ExprKind) -> Expr {
        Expr {
            id: self.id(),
            at,
            kind,
        }
    }

    fn error_at(&self, at: u32, message: impl Into<String>) -> ParseError {
        ParseError::new(self.src, at, message)
    }
}

impl Parser<'_> {
    fn error_here(&self, message: &str) -> ParseError {
        let token = &self.tokens[self.pos];
        let shown = match &token.kind {
            Tok::End => "<EOF>".to_string(),
            _ => {
                let start = token.at as usize;
                let end = self.tokens.get(self.pos + 1).map_or(self.src.len(), |t| t.at as usize);
                self.src.get(start..end).unwrap_or("").trim_end().to_string()
            }
        };
        self.error_at(token.at, format!("{message} '{shown}'"))
    }

    fn peek(&self) -> &Tok {
        &self.tokens[self.pos].kind
    }

    fn at(&self) -> u32 {
        self.tokens[self.pos].at
    }

    fn bump(&mut self) -> Token {
        let token = self.tokens[self.pos].clone();
        if !matches!(token.kind, Tok::End) {
            self.pos += 1;
        }
        token
    }

    fn eat(&mut self, punct: &str) -> bool {
        if matches!(self.peek(), Tok::Punct(p) if *p == punct) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, punct: &str) -> Result<(), ParseError> {
        if self.eat(punct) {
            Ok(())
        } else {
            Err(self.error_here(&format!("expected '{punct}', found")))
        }
    }

    pub(crate) fn id(&mut self) -> u32 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// Enters one more level of nesting, failing past [`MAX_DEPTH`].
    fn enter(&mut self, levels: usize) -> Result<(), ParseError> {
        self.depth += levels;
        if self.depth > MAX_DEPTH {
            return Err(self.too_deep());
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn too_deep(&self) -> ParseError {
        self.error_at(self.at(), format!("expression nested deeper than {MAX_DEPTH} levels"))
    }

    /// `expr: binary ('?' binary ':' expr)?`
    fn expr(&mut self) -> Result<Expr, ParseError> {
        self.enter(1)?;
        let at = self.at();
        let condition = self.binary(1)?;
        let out = if self.eat("?") {
            let then = self.binary(1)?;
            self.expect(":")?;
            let otherwise = self.expr()?;
            self.call(at, op::CONDITIONAL, vec![condition, then, otherwise])
        } else {
            condition
        };
        self.depth -= 1;
        Ok(out)
    }

    /// The binary operator at the cursor: its precedence (higher binds
    /// tighter) and function.
    fn binary_op(&self) -> Option<(u8, &'static str)> {
        Some(match self.peek() {
            Tok::Punct("||") => (1, op::OR),
            Tok::Punct("&&") => (2, op::AND),
            Tok::Punct("<") => (3, op::LESS),
            Tok::Punct("<=") => (3, op::LESS_EQUALS),
            Tok::Punct(">") => (3, op::GREATER),
            Tok::Punct(">=") => (3, op::GREATER_EQUALS),
            Tok::Punct("==") => (3, op::EQUALS),
            Tok::Punct("!=") => (3, op::NOT_EQUALS),
            Tok::In => (3, op::IN),
            Tok::Punct("+") => (4, op::ADD),
            Tok::Punct("-") => (4, op::SUBTRACT),
            Tok::Punct("*") => (5, op::MULTIPLY),
            Tok::Punct("/") => (5, op::DIVIDE),
            Tok::Punct("%") => (5, op::MODULO),
            _ => return None,
        })
    }

    /// Binary operators of precedence `min` and above, by precedence
    /// climbing: left-associative, except that a chain of `&&` or `||` is
    /// built balanced.
    fn binary(&mut self, min: u8) -> Result<Expr, ParseError> {
        let mut left = self.unary()?;
        let mut levels = 0;
        while let Some((prec, function)) = self.binary_op() {
            if prec < min {
                break;
            }
            if prec <= 2 {
                left = self.logical_chain(left, prec, function)?;
                continue;
            }
            let at = self.at();
            self.pos += 1;
            levels += 1;
            self.enter(1)?;
            let right = self.binary(prec + 1)?;
            left = self.call(at, function, vec![left, right]);
        }
        self.depth -= levels;
        Ok(left)
    }

    /// `first op t2 op t3 ...` for `&&` or `||`, as a balanced tree.
    fn logical_chain(&mut self, first: Expr, prec: u8, function: &'static str) -> Result<Expr, ParseError> {
        let mut terms = vec![first];
        let mut ats = Vec::new();
        while matches!(self.binary_op(), Some((p, _)) if p == prec) {
            ats.push(self.at());
            self.pos += 1;
            terms.push(self.binary(prec + 1)?);
        }
        Ok(self.balance(function, terms, &ats))
    }

    fn balance(&mut self, function: &str, mut terms: Vec<Expr>, ats: &[u32]) -> Expr {
        if terms.len() == 1 {
            return terms.pop().unwrap_or_else(|| unreachable!());
        }
        let mid = terms.len() / 2;
        let right = terms.split_off(mid);
        let at = ats[mid - 1];
        let left = self.balance(function, terms, &ats[..mid - 1]);
        let right = self.balance(function, right, &ats[mid..]);
        self.call(at, function, vec![left, right])
    }

    /// `unary: member | '!'+ member | '-'+ member`. A minus before a
    /// numeric literal folds into it (`-9223372036854775808` is an int).
    fn unary(&mut self) -> Result<Expr, ParseError> {
        let at = self.at();
        match self.peek() {
            Tok::Punct("!") => {
                let mut count = 0;
                while self.eat("!") {
                    count += 1;
                }
                self.enter(count)?;
                let mut operand = self.member()?;
                for _ in 0..count {
                    operand = self.call(at, op::NOT, vec![operand]);
                }
                self.depth -= count;
                Ok(operand)
            }
            Tok::Punct("-") => {
                let mut count = 0;
                while self.eat("-") {
                    count += 1;
                }
                let levels = count;
                self.enter(count)?;
                let mut operand = self.negated_literal(at)?;
                if operand.is_some() {
                    count -= 1;
                }
                let mut operand = match operand.take() {
                    Some(literal) => self.member_suffix(literal)?,
                    None => self.member()?,
                };
                for _ in 0..count {
                    operand = self.call(at, op::NEGATE, vec![operand]);
                }
                self.depth -= levels;
                Ok(operand)
            }
            _ => self.member(),
        }
    }

    /// After a `-`: the negated literal if a number literal follows.
    fn negated_literal(&mut self, at: u32) -> Result<Option<Expr>, ParseError> {
        let value = match self.peek() {
            Tok::Int(v) => Const::Int(-v),
            Tok::IntMin => Const::Int(i64::MIN),
            Tok::Double(v) => Const::Double(-v),
            _ => return Ok(None),
        };
        self.pos += 1;
        Ok(Some(self.node(at, ExprKind::Const(value))))
    }

    fn member(&mut self) -> Result<Expr, ParseError> {
        let primary = self.primary()?;
        self.member_suffix(primary)
    }

    /// `member: primary ('.' name | '.' name '(' args ')' | '.?' name |
    /// '[' expr ']' | '[?' expr ']' )*`
    fn member_suffix(&mut self, mut operand: Expr) -> Result<Expr, ParseError> {
        let mut levels = 0;
        loop {
            let at = self.at();
            if !matches!(self.peek(), Tok::Punct("." | ".?" | "[" | "[?")) {
                self.depth -= levels;
                return Ok(operand);
            }
            levels += 1;
            self.enter(1)?;
            if self.eat(".") {
                let name = self.member_name()?;
                if self.eat("(") {
                    let args = self.list_until(")")?;
                    operand = macros::receiver_call(self, at, operand, &name, args)?;
                } else {
                    operand = self.node(
                        at,
                        ExprKind::Select {
                            operand: Box::new(operand),
                            field: name,
                            test: false,
                        },
                    );
                }
            } else if self.eat(".?") {
                let name = self.member_name()?;
                let field = self.node(at, ExprKind::Const(Const::String(name.into())));
                operand = self.call(at, op::OPT_SELECT, vec![operand, field]);
            } else {
                let optional = self.eat("[?");
                if !optional {
                    self.expect("[")?;
                }
                let index = self.expr()?;
                self.expect("]")?;
                let function = if optional { op::OPT_INDEX } else { op::INDEX };
                operand = self.call(at, function, vec![operand, index]);
            }
        }
    }

    /// A field or method name after `.`: reserved words are allowed there.
    fn member_name(&mut self) -> Result<String, ParseError> {
        match self.peek().clone() {
            Tok::Ident(name) | Tok::Quoted(name) => {
                self.pos += 1;
                Ok(name)
            }
            Tok::Reserved(word) => {
                self.pos += 1;
                Ok(word.into())
            }
            _ => Err(self.error_here("expected a field or method name, found")),
        }
    }

    fn primary(&mut self) -> Result<Expr, ParseError> {
        let token = self.bump();
        let at = token.at;
        let constant = |c| Ok(ExprKind::Const(c));
        let kind = match token.kind {
            Tok::Int(v) => constant(Const::Int(v)),
            Tok::IntMin => return Err(self.error_at(at, "invalid int literal: out of range")),
            Tok::Uint(v) => constant(Const::Uint(v)),
            Tok::Double(v) => constant(Const::Double(v)),
            Tok::String(s) => constant(Const::String(s.into())),
            Tok::Bytes(b) => constant(Const::Bytes(b.into())),
            Tok::True => constant(Const::Bool(true)),
            Tok::False => constant(Const::Bool(false)),
            Tok::Null => constant(Const::Null),
            Tok::Punct("(") => {
                let inner = self.expr()?;
                self.expect(")")?;
                return Ok(inner);
            }
            Tok::Punct("[") => return self.list_literal(at, false),
            // `[?x, ...]`: a list whose first element is optional.
            Tok::Punct("[?") => return self.list_literal(at, true),
            Tok::Punct("{") => return self.map_literal(at),
            Tok::Punct(".") => match self.bump().kind {
                Tok::Ident(name) => return self.name(at, format!(".{name}")),
                _ => {
                    self.pos -= 1;
                    return Err(self.error_here("expected an identifier after '.', found"));
                }
            },
            Tok::Ident(name) => return self.name(at, name),
            Tok::Reserved(word) => {
                return Err(self.error_at(at, format!("reserved identifier: {word}")));
            }
            Tok::End => return Err(self.error_here("mismatched input")),
            _ => {
                self.pos -= 1;
                return Err(self.error_here("mismatched input"));
            }
        };
        kind.map(|kind| self.node(at, kind))
    }

    /// An identifier: a variable, a global call `f(args)`, or the start of
    /// a message literal `a.b.Type{...}` (qualified names are read as
    /// selections, then joined when a `{` follows).
    fn name(&mut self, at: u32, name: String) -> Result<Expr, ParseError> {
        if self.eat("(") {
            let args = self.list_until(")")?;
            return macros::global_call(self, at, &name, args);
        }
        // A qualified message name: `a.b.C{`.
        let mut lookahead = self.pos;
        let mut qualified = name.clone();
        while matches!(self.tokens[lookahead].kind, Tok::Punct("."))
            && matches!(self.tokens[lookahead + 1].kind, Tok::Ident(_))
        {
            if let Tok::Ident(part) = &self.tokens[lookahead + 1].kind {
                qualified.push('.');
                qualified.push_str(part);
            }
            lookahead += 2;
        }
        if matches!(self.tokens[lookahead].kind, Tok::Punct("{")) {
            self.pos = lookahead + 1;
            return self.struct_literal(at, qualified);
        }
        Ok(self.node(at, ExprKind::Ident(name)))
    }

    /// Expressions separated by commas (a trailing one allowed) up to
    /// `close`.
    fn list_until(&mut self, close: &str) -> Result<Vec<Expr>, ParseError> {
        let mut out = Vec::new();
        while !self.eat(close) {
            out.push(self.expr()?);
            if !self.eat(",") {
                self.expect(close)?;
                break;
            }
        }
        Ok(out)
    }

    fn list_literal(&mut self, at: u32, first_optional: bool) -> Result<Expr, ParseError> {
        let mut elements = Vec::new();
        let mut optional = Vec::new();
        if first_optional {
            optional.push(0);
            elements.push(self.expr()?);
            if !self.eat(",") {
                self.expect("]")?;
                return Ok(self.node(at, ExprKind::List { elements, optional }));
            }
        }
        while !self.eat("]") {
            if self.eat("?") {
                optional.push(elements.len());
            }
            elements.push(self.expr()?);
            if !self.eat(",") {
                self.expect("]")?;
                break;
            }
        }
        Ok(self.node(at, ExprKind::List { elements, optional }))
    }

    fn map_literal(&mut self, at: u32) -> Result<Expr, ParseError> {
        let mut entries = Vec::new();
        while !self.eat("}") {
            let optional = self.eat("?");
            let key = self.expr()?;
            let id = self.id();
            self.expect(":")?;
            let value = self.expr()?;
            entries.push(Entry {
                id,
                key,
                value,
                optional,
            });
            if !self.eat(",") {
                self.expect("}")?;
                break;
            }
        }
        Ok(self.node(at, ExprKind::Map(entries)))
    }

    fn struct_literal(&mut self, at: u32, type_name: String) -> Result<Expr, ParseError> {
        let mut fields = Vec::new();
        while !self.eat("}") {
            let optional = self.eat("?");
            let field = self.member_name()?;
            let id = self.id();
            self.expect(":")?;
            let value = self.expr()?;
            fields.push(FieldInit {
                id,
                field,
                value,
                optional,
            });
            if !self.eat(",") {
                self.expect("}")?;
                break;
            }
        }
        Ok(self.node(at, ExprKind::Struct { type_name, fields }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A compact rendering of the tree, for the tests.
    fn show(e: &Expr) -> String {
        match &e.kind {
            ExprKind::Const(c) => format!("{c:?}"),
            ExprKind::Ident(n) => n.clone(),
            ExprKind::Select { operand, field, test } => {
                format!("{}{}.{field}", if *test { "has:" } else { "" }, show(operand))
            }
            ExprKind::Call { target, function, args } => {
                let args: Vec<_> = args.iter().map(show).collect();
                match target {
                    Some(t) => format!("{}.{function}({})", show(t), args.join(", ")),
                    None => format!("{function}({})", args.join(", ")),
                }
            }
            ExprKind::List { elements, .. } => {
                format!("[{}]", elements.iter().map(show).collect::<Vec<_>>().join(", "))
            }
            ExprKind::Map(entries) => format!("{{{} entries}}", entries.len()),
            ExprKind::Struct { type_name, fields } => format!("{type_name}{{{} fields}}", fields.len()),
            ExprKind::Comprehension(c) => format!("fold({}, {})", c.iter_var, show(&c.iter_range)),
        }
    }

    fn p(src: &str) -> String {
        show(&parse(src).unwrap())
    }

    #[test]
    fn precedence() {
        assert_eq!(p("1 + 2 * 3"), "_+_(Int(1), _*_(Int(2), Int(3)))");
        assert_eq!(p("a || b && c"), "_||_(a, _&&_(b, c))");
        assert_eq!(p("a ? b : c ? d : e"), "_?_:_(a, b, _?_:_(c, d, e))");
        assert_eq!(p("-1"), "Int(-1)");
        assert_eq!(p("--1"), "-_(Int(-1))");
        assert_eq!(p("-9223372036854775808"), "Int(-9223372036854775808)");
        assert_eq!(p("!!a"), "!_(!_(a))");
        assert_eq!(p("x in [1]"), "@in(x, [Int(1)])");
    }

    #[test]
    fn members() {
        assert_eq!(p("a.b.c"), "a.b.c");
        assert_eq!(p("a.f(1)[0]"), "_[_](a.f(Int(1)), Int(0))");
        assert_eq!(p("a.?b"), "_?._(a, String(\"b\"))");
        assert_eq!(p("has(a.b)"), "has:a.b");
        assert_eq!(p("a.b.T{x: 1}"), "a.b.T{1 fields}");
        assert_eq!(p(".T{}"), ".T{0 fields}");
        assert_eq!(p("a.if()"), "a.if()");
    }

    #[test]
    fn logical_chains_are_balanced() {
        let src = vec!["a"; 2000].join(" && ");
        assert!(parse(&src).is_ok());
    }

    #[test]
    fn hostile_nesting_is_an_error() {
        let deep = format!("{}1{}", "(".repeat(5000), ")".repeat(5000));
        assert!(parse(&deep).unwrap_err().to_string().contains("nested deeper"));
        let chain = vec!["1"; 2000].join(" + ");
        assert!(parse(&chain).is_err());
        assert!(parse(&"x".repeat(MAX_SOURCE_LEN + 1)).is_err());
    }

    #[test]
    fn errors_say_where() {
        let e = parse("1 +").unwrap_err();
        assert_eq!(e.to_string(), "ERROR: <input>:1:4: mismatched input '<EOF>'");
        assert!(parse("a.").is_err());
        assert!(parse("if").is_err());
    }
}
