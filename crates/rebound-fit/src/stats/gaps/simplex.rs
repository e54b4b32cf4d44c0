//! The gap model's optimiser: Nelder and Mead's simplex.

/// Nelder and Mead's simplex (1965; reflection 1, expansion 2, contraction and shrink ½),
/// minimising `f` over the coordinates of `x` not in `fixed`, `iters` steps at most, from a
/// simplex whose other corners are `x` moved `size` along each free coordinate.
pub(super) fn nelder_mead(
    f: &dyn Fn(&[f64; 4]) -> f64,
    x: [f64; 4],
    fixed: [bool; 4],
    iters: usize,
    size: f64,
) -> [f64; 4] {
    let free: Vec<usize> = (0..4).filter(|&i| !fixed[i]).collect();
    let mut pts: Vec<([f64; 4], f64)> = vec![(x, f(&x))];
    for &i in &free {
        let mut y = x;
        y[i] += size;
        pts.push((y, f(&y)));
    }
    let at = |a: &[f64; 4], b: &[f64; 4], c: f64| -> [f64; 4] {
        std::array::from_fn(|i| a[i] + c * (b[i] - a[i]))
    };
    for _ in 0..iters {
        pts.sort_by(|a, b| a.1.total_cmp(&b.1));
        let n = pts.len() - 1;
        if (pts[n].1 - pts[0].1).abs() < 1e-7 * pts[0].1.abs() + 1e-6 {
            break;
        }
        let centroid: [f64; 4] =
            std::array::from_fn(|i| pts[..n].iter().map(|p| p.0[i]).sum::<f64>() / n as f64);
        let r = at(&centroid, &pts[n].0, -1.0);
        let fr = f(&r);
        if fr < pts[0].1 {
            let e = at(&centroid, &pts[n].0, -2.0);
            let fe = f(&e);
            pts[n] = if fe < fr { (e, fe) } else { (r, fr) };
        } else if fr < pts[n - 1].1 {
            pts[n] = (r, fr);
        } else {
            let c = at(&centroid, &pts[n].0, 0.5);
            let fc = f(&c);
            if fc < pts[n].1 {
                pts[n] = (c, fc);
            } else {
                let best = pts[0].0;
                for p in pts.iter_mut().skip(1) {
                    p.0 = at(&best, &p.0, 0.5);
                    p.1 = f(&p.0);
                }
            }
        }
    }
    pts.into_iter().min_by(|a, b| a.1.total_cmp(&b.1)).map_or(x, |p| p.0)
}
