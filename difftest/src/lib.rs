//! Differential testing and fuzzing for datalove: a seeded generator of well-typed
//! programs ([`gen`]), a runner that runs each on every backend and compares what they
//! did ([`run`]), a reducer that shrinks a program while a finding remains ([`reduce`]),
//! and the bodies of the `cargo fuzz` targets ([`fuzz`]), which stable tests replay.
//!
//! ```
//! use datalove_difftest::{gen, rng::Rng};
//!
//! // One seed, one program; it compiles.
//! let program = gen::generate(&mut Rng::seeded(42), &gen::Config::default());
//! assert_eq!(program, gen::generate(&mut Rng::seeded(42), &gen::Config::default()));
//! program.compile().expect("a generated program compiles");
//! ```
//!
//! `docs/testing.md` has the commands: the differential smoke test, a long run, the
//! fuzz targets.

pub mod case;
pub mod driver;
pub mod fuzz;
pub mod gen;
pub mod irgen;
pub mod program;
pub mod reduce;
pub mod riders;
pub mod rng;
pub mod run;
