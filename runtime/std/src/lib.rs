//! The std rider.
