//! Builders for bigtest ops, used by the BigTest analyses to record their
//! results. Inputs are validated before MLIR sees them.

use melior::{
    ir::{
        attribute::{
            ArrayAttribute, DenseI64ArrayAttribute, FlatSymbolRefAttribute, IntegerAttribute,
            StringAttribute,
        },
        operation::OperationBuilder,
        r#type::IntegerType,
        Attribute, Identifier, Location, Operation,
    },
    Context,
};

use super::{path, PathKey, PathRecord, JDU_PATH, TEST_RECORD};
use crate::{Error, Result};

/// The feasibility of a JDU path (the ODS enum `PathStatus`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathStatus {
    Unsolved,
    Sat,
    Unsat,
    Unknown,
}

impl PathStatus {
    pub const ALL: [PathStatus; 4] = [
        PathStatus::Unsolved,
        PathStatus::Sat,
        PathStatus::Unsat,
        PathStatus::Unknown,
    ];

    /// The value of the ODS enum case.
    pub fn value(self) -> i64 {
        self as i64
    }

    /// The case with ODS value `value`.
    pub fn from_value(value: i64) -> Option<PathStatus> {
        PathStatus::ALL.into_iter().find(|s| s.value() == value)
    }

    /// The keyword the custom assembly format prints.
    pub fn keyword(self) -> &'static str {
        match self {
            PathStatus::Unsolved => "unsolved",
            PathStatus::Sat => "sat",
            PathStatus::Unsat => "unsat",
            PathStatus::Unknown => "unknown",
        }
    }

    /// The status of the `bigtest.jdu_path` op `op` (`unsolved` when the
    /// attribute is absent; the verifier rejects values out of range).
    pub fn of(op: &melior::ir::Operation) -> PathStatus {
        crate::ir::int_attr(op, "status")
            .and_then(PathStatus::from_value)
            .unwrap_or(PathStatus::Unsolved)
    }
}

impl std::fmt::Display for PathStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.keyword())
    }
}

pub struct BigtestBuilder<'c> {
    context: &'c Context,
    location: Location<'c>,
}

impl<'c> BigtestBuilder<'c> {
    pub fn new(context: &'c Context, location: Location<'c>) -> Self {
        BigtestBuilder { context, location }
    }

    fn named(&self, name: &str, attribute: Attribute<'c>) -> (Identifier<'c>, Attribute<'c>) {
        (Identifier::new(self.context, name), attribute)
    }

    /// `name = [elements]`, or nothing when there are none (the op's
    /// optional attributes are absent then).
    fn optional_array(
        &self,
        name: &str,
        elements: Vec<Attribute<'c>>,
    ) -> Vec<(Identifier<'c>, Attribute<'c>)> {
        if elements.is_empty() {
            return Vec::new();
        }
        vec![self.named(name, ArrayAttribute::new(self.context, &elements).into())]
    }

    fn strings(&self, values: &[String]) -> Attribute<'c> {
        let elements: Vec<Attribute> = values
            .iter()
            .map(|v| StringAttribute::new(self.context, v).into())
            .collect();
        ArrayAttribute::new(self.context, &elements).into()
    }

    /// `bigtest.jdu_path <id> of @<program> status ... branches [...]
    /// constraints [...] keys [...] records [...]` (keys and records are
    /// left out when empty).
    #[allow(clippy::too_many_arguments)]
    pub fn jdu_path(
        &self,
        id: i64,
        program: &str,
        status: PathStatus,
        branches: &[String],
        constraints: &[String],
        keys: &[PathKey],
        records: &[PathRecord],
    ) -> Result<Operation<'c>> {
        let fail = |message: String| Error::Build {
            op: JDU_PATH.into(),
            message,
        };
        if id < 0 {
            return Err(fail(format!("id must be >= 0, found {id}")));
        }
        if program.is_empty() {
            return Err(fail("program name is empty".into()));
        }
        let i64_type = IntegerType::new(self.context, 64).into();
        let i32_type = IntegerType::new(self.context, 32).into();
        OperationBuilder::new(JDU_PATH, self.location)
            .add_attributes(&[
                self.named("id", IntegerAttribute::new(i64_type, id).into()),
                self.named(
                    "program",
                    FlatSymbolRefAttribute::new(self.context, program).into(),
                ),
                self.named(
                    "status",
                    IntegerAttribute::new(i32_type, status.value()).into(),
                ),
                self.named("branches", self.strings(branches)),
                self.named("constraints", self.strings(constraints)),
            ])
            .add_attributes(&self.optional_array("keys", path::keys_attribute(self.context, keys)))
            .add_attributes(
                &self.optional_array("records", path::records_attribute(self.context, records)),
            )
            .build()
            .map_err(|e| fail(e.to_string()))
    }

    /// `bigtest.test_record of @<program> [case <n>] source "<source>" text "<text>" covers [...]`.
    pub fn test_record(
        &self,
        program: &str,
        case: usize,
        source: &str,
        text: &str,
        covers: &[i64],
    ) -> Result<Operation<'c>> {
        let fail = |message: String| Error::Build {
            op: TEST_RECORD.into(),
            message,
        };
        if program.is_empty() || source.is_empty() {
            return Err(fail("program and source names must not be empty".into()));
        }
        if let Some(id) = covers.iter().find(|&&id| id < 0) {
            return Err(fail(format!("path ids are >= 0, found {id}")));
        }
        let mut builder = OperationBuilder::new(TEST_RECORD, self.location);
        if case > 0 {
            let i64_type = IntegerType::new(self.context, 64).into();
            builder = builder.add_attributes(&[self.named(
                "test_case",
                IntegerAttribute::new(i64_type, case as i64).into(),
            )]);
        }
        builder
            .add_attributes(&[
                self.named(
                    "program",
                    FlatSymbolRefAttribute::new(self.context, program).into(),
                ),
                self.named("source", StringAttribute::new(self.context, source).into()),
                self.named("text", StringAttribute::new(self.context, text).into()),
                self.named(
                    "covers",
                    DenseI64ArrayAttribute::new(self.context, covers).into(),
                ),
            ])
            .build()
            .map_err(|e| fail(e.to_string()))
    }
}
