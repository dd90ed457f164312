//! Rider build helper.
