# math: f64 functions, and min/max of any type.
require rider std
import std.sqrt as std_sqrt
import std.sin as std_sin
import std.cos as std_cos
import std.exp as std_exp
import std.ln as std_ln
import std.pow as std_pow
import std.floor as std_floor
import std.ceil as std_ceil
import std.fabs as std_fabs
import std.min as std_min
import std.max as std_max

fun sqrt(x: f64): f64
  ret std_sqrt(x)
end fun

fun sin(x: f64): f64
  ret std_sin(x)
end fun

fun cos(x: f64): f64
  ret std_cos(x)
end fun

fun exp(x: f64): f64
  ret std_exp(x)
end fun

fun ln(x: f64): f64
  ret std_ln(x)
end fun

fun pow(x: f64, y: f64): f64
  ret std_pow(x, y)
end fun

fun floor(x: f64): f64
  ret std_floor(x)
end fun

fun ceil(x: f64): f64
  ret std_ceil(x)
end fun

fun fabs(x: f64): f64
  ret std_fabs(x)
end fun

fun min<T>(a: T, b: T): T
  ret std_min(a, b)
end fun

fun max<T>(a: T, b: T): T
  ret std_max(a, b)
end fun
