//! Canonical keys: the representative of a class is its image with the
//! least dense key under the four symmetries of the start.

use super::dense::{Keyed, image_keys};
use crate::board::Position;

/// The canonical (least) dense key of the class of `p`.
#[inline(always)]
pub fn canonical_key<G: Keyed>(p: &Position<G>) -> G::Key {
    let k = image_keys(p);
    k[0].min(k[1]).min(k[2].min(k[3]))
}

/// The canonical key of the class of `p` and the size of its orbit (1, 2
/// or 4: the number of distinct positions among the four images).
#[inline(always)]
pub fn canonical_and_orbit<G: Keyed>(p: &Position<G>) -> (G::Key, u32) {
    crate::symmetry::least_image(&image_keys(p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{B4, B6, B8, Geometry};
    use crate::key::dense::{pack, unpack};
    use crate::symmetry::Symmetry;

    #[test]
    fn start_is_its_own_class() {
        fn check<G: Keyed>() {
            let s = Position::<G>::start();
            assert_eq!(canonical_and_orbit(&s), (pack(&s), 1));
        }
        check::<B4>();
        check::<B6>();
        check::<B8>();
        assert_eq!(B8::N, 8);
    }

    #[test]
    fn tables_match_slow_images() {
        let mut ps = vec![Position::<B6>::start()];
        for _ in 0..5 {
            let next: Vec<_> = ps.iter().flat_map(|p| p.children()).collect();
            ps.extend(next);
        }
        for p in &ps {
            let keys = image_keys(p);
            for (s, sym) in Symmetry::START.iter().enumerate() {
                assert_eq!(keys[s], pack(&sym.position(p)));
            }
            let (c, _) = canonical_and_orbit(p);
            let canon = unpack::<B6>(c).unwrap();
            assert!(Symmetry::START.iter().any(|s| s.position(p) == canon));
        }
    }

    #[test]
    fn first_moves_form_one_orbit() {
        let start = Position::<B8>::start();
        let kids = start.children();
        let (c0, o0) = canonical_and_orbit(&kids[0]);
        assert_eq!(o0, 4);
        for k in &kids {
            assert_eq!(canonical_and_orbit(k), (c0, 4));
        }
    }
}
