//! The text front end.
