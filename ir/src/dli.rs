//! The `.dli` rider-interface parser.
