//! The host language of a df program (the module attribute `df.host`): the
//! df dialect's verifier checks the name, and `coco_dataflow::host` gives
//! each string and number op the host's semantics.

use std::fmt;

/// The module attribute naming the host language.
pub const HOST_ATTRIBUTE: &str = "df.host";

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Host {
    /// Java or Scala on the JVM, Spark's own languages; the default.
    #[default]
    Jvm,
    /// Python 3 (PySpark).
    Python,
}

impl Host {
    pub const ALL: [Host; 2] = [Host::Jvm, Host::Python];

    pub fn name(self) -> &'static str {
        match self {
            Host::Jvm => "jvm",
            Host::Python => "python",
        }
    }

    pub fn from_name(name: &str) -> Option<Host> {
        Host::ALL.into_iter().find(|h| h.name() == name)
    }
}

impl fmt::Display for Host {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.name())
    }
}
