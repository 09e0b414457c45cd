//! Arguments as Python gives them: whole numbers of any size and seconds,
//! turned into the library's types or a ValueError that names the argument.

use std::fmt;
use std::ops::RangeInclusive;
use std::time::{Duration, Instant};

use pyo3::exceptions::{PyOverflowError, PyValueError};
use pyo3::prelude::*;

use score4::wide::Shape;

/// A Python int, however large: one past 64 bits is still a ValueError
/// naming its argument where it is checked, not Python's OverflowError.
#[derive(Clone, Debug)]
pub enum Int {
    Fits(i64),
    /// Too large for 64 bits, as it is shown in a message.
    Huge {
        negative: bool,
        text: String,
    },
}

impl<'a, 'py> FromPyObject<'a, 'py> for Int {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        match obj.extract::<i64>() {
            Ok(v) => Ok(Int::Fits(v)),
            Err(e) if e.is_instance_of::<PyOverflowError>(obj.py()) => {
                let negative = obj.lt(0)?;
                // Past 128 bits the digits would be as long as they are
                // useless (and past 4300 Python refuses to make them).
                let text = match obj.extract::<i128>() {
                    Ok(v) => v.to_string(),
                    Err(_) => {
                        let bits: u64 = obj.call_method0("bit_length")?.extract()?;
                        let sign = if negative { "negative " } else { "" };
                        format!("(a {sign}{bits}-bit number)")
                    }
                };
                Ok(Int::Huge { negative, text })
            }
            Err(e) => Err(e),
        }
    }
}

impl fmt::Display for Int {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Int::Fits(v) => write!(f, "{v}"),
            Int::Huge { text, .. } => f.write_str(text),
        }
    }
}

impl Int {
    /// The number as a `usize`, if it is one.
    pub fn to_usize(&self) -> Option<usize> {
        match self {
            Int::Fits(v) => usize::try_from(*v).ok(),
            Int::Huge { .. } => None,
        }
    }

    fn is_negative(&self) -> bool {
        match self {
            Int::Fits(v) => *v < 0,
            Int::Huge { negative, .. } => *negative,
        }
    }
}

/// A whole number argument in `range`, else a ValueError naming it.
pub fn count_arg(name: &str, value: &Int, range: RangeInclusive<usize>) -> PyResult<usize> {
    value
        .to_usize()
        .filter(|v| range.contains(v))
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "bad {name} {value}: expected {} to {}",
                range.start(),
                range.end()
            ))
        })
}

/// A board as Python gives it, `(width, height)`.
pub type Dims = (Int, Int);

/// A board from Python's `(width, height)`.
pub fn shape((w, h): &Dims) -> PyResult<Shape> {
    match (w.to_usize(), h.to_usize()) {
        (Some(w), Some(h)) => Shape::new(w, h).map_err(|e| PyValueError::new_err(e.to_string())),
        _ if w.is_negative() || h.is_negative() => Err(PyValueError::new_err(format!(
            "board ({w}, {h}) is not supported: a width and a height cannot be negative"
        ))),
        _ => Err(PyValueError::new_err(format!(
            "board ({w}, {h}) is not supported: board_sizes() lists those that are"
        ))),
    }
}

/// Seconds as Python gives them: a float, or an int of any size.
pub enum Seconds {
    Float(f64),
    /// An int past what a float holds.
    Huge(Int),
}

impl<'a, 'py> FromPyObject<'a, 'py> for Seconds {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        match obj.extract::<f64>() {
            Ok(t) => Ok(Seconds::Float(t)),
            Err(e) if e.is_instance_of::<PyOverflowError>(obj.py()) => {
                Ok(Seconds::Huge(obj.extract::<Int>()?))
            }
            Err(e) => Err(e),
        }
    }
}

impl Seconds {
    /// The span as a Duration, None for one past what the clock counts;
    /// else a ValueError naming the argument.
    pub fn duration(&self, name: &str) -> PyResult<Option<Duration>> {
        match *self {
            Seconds::Float(t) if t.is_finite() && t >= 0.0 => {
                Ok(Duration::try_from_secs_f64(t).ok())
            }
            Seconds::Float(t) => Err(PyValueError::new_err(format!(
                "bad {name} {t}: expected seconds, 0 or more"
            ))),
            Seconds::Huge(ref t) => Err(PyValueError::new_err(format!(
                "bad {name} {t}: expected seconds, 0 or more, that a float can hold"
            ))),
        }
    }
}

/// The moment `timeout` seconds from now; None for no timeout, and for one
/// past what the clock can count, which never comes.
pub fn deadline(timeout: Option<&Seconds>) -> PyResult<Option<Instant>> {
    match timeout {
        None => Ok(None),
        Some(t) => Ok(t
            .duration("timeout")?
            .and_then(|d| Instant::now().checked_add(d))),
    }
}
