//! The float functions core lacks. With `std` they are std's (the platform's libm, so seeded
//! figures are the same as before the crate went `no_std`); without it, the `libm` crate's
//! (a port of musl's).

#[cfg(feature = "std")]
mod imp {
    pub(crate) fn ln(x: f64) -> f64 {
        x.ln()
    }
    pub(crate) fn cbrt(x: f64) -> f64 {
        x.cbrt()
    }
    pub(crate) fn ceil(x: f64) -> f64 {
        x.ceil()
    }
    pub(crate) fn floor(x: f64) -> f64 {
        x.floor()
    }
    pub(crate) fn round(x: f64) -> f64 {
        x.round()
    }
    pub(crate) fn powi(x: f64, n: i32) -> f64 {
        x.powi(n)
    }
}

#[cfg(not(feature = "std"))]
mod imp {
    pub(crate) fn ln(x: f64) -> f64 {
        libm::log(x)
    }
    pub(crate) fn cbrt(x: f64) -> f64 {
        libm::cbrt(x)
    }
    pub(crate) fn ceil(x: f64) -> f64 {
        libm::ceil(x)
    }
    pub(crate) fn floor(x: f64) -> f64 {
        libm::floor(x)
    }
    pub(crate) fn round(x: f64) -> f64 {
        libm::round(x)
    }
    pub(crate) fn powi(x: f64, n: i32) -> f64 {
        libm::pow(x, f64::from(n))
    }
}

pub(crate) use imp::{cbrt, ceil, floor, ln, powi, round};
