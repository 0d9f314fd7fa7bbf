//! Spark SQL expressions written as strings (`df.filter("status IN
//! ('COMPLETE', 'CLOSED')")`, `selectExpr("amount * 2 AS double")`,
//! `F.expr(...)`): parsed into the Column code a job would write for them
//! (`F.col("status").isin("COMPLETE", "CLOSED")`), which [`super::expr`]
//! lowers with Spark's semantics like any other.
//!
//! The subset: column names (plain or in backticks), string, integer and
//! boolean literals, `+ - * / %`, comparisons (`=`, `==`, `!=`, `<>`, `<`,
//! `<=`, `>`, `>=`), `AND`, `OR`, `NOT`, `IS [NOT] NULL`, `[NOT] IN (...)`,
//! `[NOT] BETWEEN a AND b`, parentheses, and calls of the functions the
//! Column API has. A decimal literal (`1.5`) is Spark's DECIMAL type, which
//! coco does not model: it is read where it is compared (where DECIMAL and
//! DOUBLE order alike), and refused elsewhere; `1.5D` is a double anywhere.

use crate::{
    error::{unsupported, Loc, Result},
    syntax::{Field, Node},
};

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Name(String),
    /// `` `a b` ``: a name, never a keyword.
    Quoted(String),
    Str(String),
    Int(String),
    /// `1.5`: Spark's DECIMAL.
    Decimal(String),
    /// `1.5D`, `1e3`: a DOUBLE.
    Double(String),
    Op(&'static str),
}

const OPERATORS: [&str; 17] = [
    "<=>", "==", "!=", "<>", "<=", ">=", "=", "<", ">", "+", "-", "*", "/", "%", "(", ")", ",",
];

/// The tokens of `text` with their character offsets.
fn tokens(text: &str, loc: &Loc) -> Result<Vec<(Token, usize)>> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c == '\'' || c == '"' {
            let mut s = String::new();
            i += 1;
            loop {
                match chars.get(i) {
                    None => {
                        return unsupported(
                            loc,
                            format!("the SQL string {text:?} has a quote that is not closed"),
                        )
                    }
                    Some('\\') => {
                        let escaped = match chars.get(i + 1) {
                            Some('n') => '\n',
                            Some('t') => '\t',
                            Some(&other) => other,
                            None => {
                                return unsupported(
                                    loc,
                                    format!("the SQL string {text:?} ends in a backslash"),
                                )
                            }
                        };
                        s.push(escaped);
                        i += 2;
                    }
                    Some(&q) if q == c => {
                        i += 1;
                        break;
                    }
                    Some(&other) => {
                        s.push(other);
                        i += 1;
                    }
                }
            }
            out.push((Token::Str(s), start));
            continue;
        }
        if c == '`' {
            let mut s = String::new();
            i += 1;
            loop {
                match chars.get(i) {
                    None => {
                        return unsupported(
                            loc,
                            format!("the SQL string {text:?} has a backtick that is not closed"),
                        )
                    }
                    Some('`') if chars.get(i + 1) == Some(&'`') => {
                        s.push('`');
                        i += 2;
                    }
                    Some('`') => {
                        i += 1;
                        break;
                    }
                    Some(&other) => {
                        s.push(other);
                        i += 1;
                    }
                }
            }
            out.push((Token::Quoted(s), start));
            continue;
        }
        if c.is_ascii_digit() || (c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit)) {
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '.') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let lower = word.to_ascii_lowercase();
            let token = if let Some(digits) = lower.strip_suffix('d') {
                Token::Double(digits.to_string())
            } else if lower.contains('e') {
                Token::Double(lower)
            } else if lower.contains('.') {
                Token::Decimal(lower)
            } else if lower.chars().all(|c| c.is_ascii_digit()) {
                Token::Int(lower)
            } else {
                return unsupported(
                    loc,
                    format!("the SQL literal {word} is not supported (integers, 1.5D and 1.5 are)"),
                );
            };
            out.push((token, start));
            continue;
        }
        if c.is_alphabetic() || c == '_' {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push((Token::Name(chars[start..i].iter().collect()), start));
            continue;
        }
        let rest: String = chars[i..chars.len().min(i + 3)].iter().collect();
        match OPERATORS.iter().find(|op| rest.starts_with(**op)) {
            Some(op) => {
                out.push((Token::Op(op), start));
                i += op.chars().count();
            }
            None => {
                return unsupported(
                    loc,
                    format!("the SQL string {text:?} has {c:?}, which coco does not read"),
                )
            }
        }
    }
    Ok(out)
}

struct Parser<'t> {
    text: &'t str,
    tokens: Vec<(Token, usize)>,
    at: usize,
    loc: Loc,
}

/// Node makers for the Column code.
fn call(f: &str, args: Vec<Node>, loc: &Loc) -> Node {
    Node::make_call(f, args, loc)
}

fn method(receiver: Node, name: &str, args: Vec<Node>, loc: &Loc) -> Node {
    let func = Node::make(
        "Attribute",
        loc,
        vec![
            ("value", Field::Node(receiver)),
            ("attr", Field::Str(name.to_string())),
            ("ctx", Field::Node(Node::make("Load", loc, Vec::new()))),
        ],
    );
    Node::make(
        "Call",
        loc,
        vec![
            ("func", Field::Node(func)),
            ("args", Field::List(args)),
            ("keywords", Field::List(Vec::new())),
        ],
    )
}

fn compare(left: Node, op: &str, right: Node, loc: &Loc) -> Node {
    Node::make(
        "Compare",
        loc,
        vec![
            ("left", Field::Node(left)),
            ("ops", Field::List(vec![Node::make(op, loc, Vec::new())])),
            ("comparators", Field::List(vec![right])),
        ],
    )
}

fn invert(operand: Node, loc: &Loc) -> Node {
    Node::make(
        "UnaryOp",
        loc,
        vec![
            ("op", Field::Node(Node::make("Invert", loc, Vec::new()))),
            ("operand", Field::Node(operand)),
        ],
    )
}

/// An operand as parsed: a DECIMAL literal is kept apart until it is
/// known to be compared.
enum Operand {
    Code(Node),
    Decimal(String, usize),
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at).map(|(t, _)| t)
    }

    fn keyword(&self, word: &str) -> bool {
        matches!(self.peek(), Some(Token::Name(n)) if n.eq_ignore_ascii_case(word))
    }

    fn eat_keyword(&mut self, word: &str) -> bool {
        let found = self.keyword(word);
        self.at += usize::from(found);
        found
    }

    fn eat_op(&mut self, op: &str) -> bool {
        let found = matches!(self.peek(), Some(Token::Op(o)) if *o == op);
        self.at += usize::from(found);
        found
    }

    fn error<T>(&self, what: impl std::fmt::Display) -> Result<T> {
        let offset = self
            .tokens
            .get(self.at)
            .map_or(self.text.chars().count(), |(_, o)| *o);
        unsupported(
            &self.loc,
            format!(
                "the SQL expression {:?}, at character {}: {what}",
                self.text,
                offset + 1
            ),
        )
    }

    fn expect_op(&mut self, op: &str) -> Result<()> {
        if self.eat_op(op) {
            return Ok(());
        }
        self.error(format!("expected `{op}`"))
    }

    /// An operand used as a value: a DECIMAL literal is refused.
    fn code(&self, operand: Operand) -> Result<Node> {
        match operand {
            Operand::Code(node) => Ok(node),
            Operand::Decimal(text, offset) => unsupported(
                &self.loc,
                format!(
                    "the SQL expression {:?}, at character {}: {text} is a DECIMAL literal in Spark SQL, which coco reads only where it is compared; write {text}D for a DOUBLE",
                    self.text,
                    offset + 1
                ),
            ),
        }
    }

    /// An operand of a comparison: a DECIMAL literal orders as the double.
    fn compared(&self, operand: Operand) -> Node {
        match operand {
            Operand::Code(node) => node,
            Operand::Decimal(text, _) => Node::make_constant("float", &text, &self.loc),
        }
    }

    fn or(&mut self) -> Result<Node> {
        let mut left = self.and()?;
        while self.eat_keyword("OR") {
            let right = self.and()?;
            left = Node::make_binop(left, "BitOr", right, &self.loc);
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Node> {
        let mut left = self.not()?;
        while self.eat_keyword("AND") {
            let right = self.not()?;
            left = Node::make_binop(left, "BitAnd", right, &self.loc);
        }
        Ok(left)
    }

    fn not(&mut self) -> Result<Node> {
        if self.eat_keyword("NOT") {
            let operand = self.not()?;
            return Ok(invert(operand, &self.loc));
        }
        self.comparison()
    }

    fn comparison(&mut self) -> Result<Node> {
        let loc = self.loc.clone();
        let left = self.additive()?;
        if self.eat_keyword("IS") {
            let negated = self.eat_keyword("NOT");
            if !self.eat_keyword("NULL") {
                return self.error("IS is read before NULL or NOT NULL");
            }
            let left = self.code(left)?;
            return Ok(method(
                left,
                if negated { "isNotNull" } else { "isNull" },
                Vec::new(),
                &loc,
            ));
        }
        let negated = self.eat_keyword("NOT");
        if self.eat_keyword("IN") {
            self.expect_op("(")?;
            let mut items = vec![self.compared_operand()?];
            while self.eat_op(",") {
                items.push(self.compared_operand()?);
            }
            self.expect_op(")")?;
            let isin = method(self.compared(left), "isin", items, &loc);
            return Ok(if negated { invert(isin, &loc) } else { isin });
        }
        if self.eat_keyword("BETWEEN") {
            let low = self.compared_operand()?;
            if !self.eat_keyword("AND") {
                return self.error("BETWEEN is read as `BETWEEN low AND high`");
            }
            let high = self.compared_operand()?;
            let value = self.compared(left);
            let range = Node::make_binop(
                compare(value.clone(), "GtE", low, &loc),
                "BitAnd",
                compare(value, "LtE", high, &loc),
                &loc,
            );
            return Ok(if negated { invert(range, &loc) } else { range });
        }
        if negated {
            return self.error("NOT is read before IN, BETWEEN or a condition");
        }
        for word in ["LIKE", "RLIKE", "ILIKE", "REGEXP"] {
            if self.keyword(word) {
                return self.error(format!("{word} is not supported yet"));
            }
        }
        let op = match self.peek() {
            Some(Token::Op("=" | "==")) => "Eq",
            Some(Token::Op("!=" | "<>")) => "NotEq",
            Some(Token::Op("<")) => "Lt",
            Some(Token::Op("<=")) => "LtE",
            Some(Token::Op(">")) => "Gt",
            Some(Token::Op(">=")) => "GtE",
            Some(Token::Op("<=>")) => {
                self.at += 1;
                let right = self.additive()?;
                let (left, right) = (self.compared(left), self.compared(right));
                return Ok(method(left, "eqNullSafe", vec![right], &loc));
            }
            _ => return self.code(left),
        };
        self.at += 1;
        let right = self.additive()?;
        Ok(compare(self.compared(left), op, self.compared(right), &loc))
    }

    fn compared_operand(&mut self) -> Result<Node> {
        let operand = self.additive()?;
        Ok(self.compared(operand))
    }

    fn additive(&mut self) -> Result<Operand> {
        let mut left = self.multiplicative()?;
        loop {
            let op = if self.eat_op("+") {
                "Add"
            } else if self.eat_op("-") {
                "Sub"
            } else {
                return Ok(left);
            };
            let right = self.multiplicative()?;
            let (l, r) = (self.code(left)?, self.code(right)?);
            left = Operand::Code(Node::make_binop(l, op, r, &self.loc));
        }
    }

    fn multiplicative(&mut self) -> Result<Operand> {
        let mut left = self.unary()?;
        loop {
            let op = if self.eat_op("*") {
                "Mult"
            } else if self.eat_op("/") {
                "Div"
            } else if self.eat_op("%") {
                "Mod"
            } else {
                return Ok(left);
            };
            let right = self.unary()?;
            let (l, r) = (self.code(left)?, self.code(right)?);
            left = Operand::Code(Node::make_binop(l, op, r, &self.loc));
        }
    }

    fn unary(&mut self) -> Result<Operand> {
        if self.eat_op("-") {
            return match self.unary()? {
                Operand::Decimal(text, offset) => Ok(Operand::Decimal(format!("-{text}"), offset)),
                operand => {
                    let code = self.code(operand)?;
                    Ok(Operand::Code(Node::make(
                        "UnaryOp",
                        &self.loc,
                        vec![
                            ("op", Field::Node(Node::make("USub", &self.loc, Vec::new()))),
                            ("operand", Field::Node(code)),
                        ],
                    )))
                }
            };
        }
        self.eat_op("+");
        self.primary()
    }

    fn primary(&mut self) -> Result<Operand> {
        let loc = self.loc.clone();
        let Some((token, offset)) = self.tokens.get(self.at).cloned() else {
            return self.error("the expression ends where a value is expected");
        };
        self.at += 1;
        let code = match token {
            Token::Str(s) => call("lit", vec![Node::make_str(&s, &loc)], &loc),
            Token::Int(digits) => {
                call("lit", vec![Node::make_constant("int", &digits, &loc)], &loc)
            }
            Token::Double(text) => {
                let value: f64 = match text.parse() {
                    Ok(v) => v,
                    Err(_) => return self.error(format!("{text} is not a number")),
                };
                call(
                    "lit",
                    vec![Node::make_constant("float", &format!("{value:?}"), &loc)],
                    &loc,
                )
            }
            Token::Decimal(text) => return Ok(Operand::Decimal(text, offset)),
            Token::Op("(") => {
                let inner = self.or()?;
                self.expect_op(")")?;
                inner
            }
            Token::Quoted(name) => call(
                "col",
                vec![Node::make_str(
                    &format!("`{}`", name.replace('`', "``")),
                    &loc,
                )],
                &loc,
            ),
            Token::Name(name) => {
                let upper = name.to_ascii_uppercase();
                match upper.as_str() {
                    "TRUE" | "FALSE" => call(
                        "lit",
                        vec![Node::make_constant("bool", if upper == "TRUE" { "True" } else { "False" }, &loc)],
                        &loc,
                    ),
                    "NULL" => return self.error("a NULL literal is not supported yet (its type comes from where it is used)"),
                    "CASE" | "CAST" | "INTERVAL" | "EXISTS" => {
                        return self.error(format!("{upper} is not supported yet"))
                    }
                    _ if self.eat_op("(") => {
                        let mut args = Vec::new();
                        if !self.eat_op(")") {
                            loop {
                                if self.eat_op("*") {
                                    return self.error(format!("{name}(*) is an aggregate, which a row's expression cannot hold"));
                                }
                                let arg = self.or()?;
                                args.push(arg);
                                if self.eat_op(")") {
                                    break;
                                }
                                self.expect_op(",")?;
                            }
                        }
                        call(&name.to_ascii_lowercase(), args, &loc)
                    }
                    _ => {
                        if matches!(self.peek(), Some(Token::Op(_))) || self.peek().is_none() {
                            call("col", vec![Node::make_str(&name, &loc)], &loc)
                        } else if let Some(Token::Name(_)) = self.peek() {
                            call("col", vec![Node::make_str(&name, &loc)], &loc)
                        } else {
                            return self.error(format!("{name} is followed by what coco does not read"));
                        }
                    }
                }
            }
            other => return self.error(format!("{other:?} is not read here")),
        };
        Ok(Operand::Code(code))
    }
}

/// `code.alias(name)`.
pub fn aliased(code: Node, name: &str, loc: &Loc) -> Node {
    method(code, "alias", vec![Node::make_str(name, loc)], loc)
}

/// The Column code of the SQL expression `text` (the string constant at
/// `loc`); with `alias`, also the `AS name` that may end it (selectExpr).
pub fn parse(text: &str, loc: &Loc, alias: bool) -> Result<(Node, Option<String>)> {
    let mut parser = Parser {
        text,
        tokens: tokens(text, loc)?,
        at: 0,
        loc: loc.clone(),
    };
    let code = parser.or()?;
    let mut name = None;
    if alias && parser.eat_keyword("AS") {
        name = match parser.tokens.get(parser.at).cloned() {
            Some((Token::Name(n) | Token::Quoted(n), _)) => Some(n),
            _ => return parser.error("AS is read before a name"),
        };
        parser.at += 1;
    } else if alias {
        // `amount * 2 doubled`: an alias without AS.
        if let Some((Token::Name(n) | Token::Quoted(n), _)) = parser.tokens.get(parser.at).cloned()
        {
            name = Some(n);
            parser.at += 1;
        }
    }
    if parser.at < parser.tokens.len() {
        return parser.error("what follows the expression is not read");
    }
    Ok((code, name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::names::render;

    fn loc() -> Loc {
        Loc {
            file: "job.py".into(),
            line: 1,
            column: 1,
        }
    }

    fn code(text: &str) -> String {
        render(&parse(text, &loc(), false).unwrap().0)
    }

    #[test]
    fn conditions_become_the_column_code_a_job_would_write() {
        assert_eq!(
            code("order_status IN ('COMPLETE','CLOSED')"),
            render(
                &parse("order_status in ('COMPLETE', 'CLOSED')", &loc(), false)
                    .unwrap()
                    .0
            )
        );
        let text = code("a >= 1.5 AND NOT b IS NULL OR c BETWEEN 1 AND 3");
        assert!(text.contains("isNull"), "{text}");
        assert!(text.contains('~'), "{text}");
        assert!(text.contains('|'), "{text}");
    }

    #[test]
    fn a_decimal_is_read_only_where_it_is_compared() {
        assert!(parse("amount > 100.0", &loc(), false).is_ok());
        let err = parse("amount * 1.5 > 3", &loc(), false)
            .unwrap_err()
            .to_string();
        assert!(err.contains("1.5 is a DECIMAL literal"), "{err}");
        assert!(parse("amount * 1.5D > 3", &loc(), false).is_ok());
    }

    #[test]
    fn select_expressions_take_an_alias() {
        let (_, name) = parse("amount * 2 AS doubled", &loc(), true).unwrap();
        assert_eq!(name.as_deref(), Some("doubled"));
        let (_, name) = parse("upper(name) shout", &loc(), true).unwrap();
        assert_eq!(name.as_deref(), Some("shout"));
        let err = parse("a b c", &loc(), true).unwrap_err().to_string();
        assert!(err.contains("what follows"), "{err}");
    }
}
