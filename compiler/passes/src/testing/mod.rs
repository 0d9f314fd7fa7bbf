//! Test-only passes that expose analyses to lit tests (Triton's
//! `test-*` passes): they print what an analysis computed as remarks.

pub mod layouts;
