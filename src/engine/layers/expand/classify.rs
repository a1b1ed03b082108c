//! How a worker classifies the parents of a chunk (orbit, shape, moves,
//! pass or end) and makes their children, in a copy compiled for AVX2
//! where the CPU has it.

use super::worker::Worker;
use crate::board::cpu::on_cpu;
use crate::board::{Color, Position};
use crate::census::{LayerBy, add_games, games_times};
use crate::engine::layers::LayersError;
use crate::engine::layers::store::{Record, from_stored, partition_of};
use crate::formats::framed::FrameError;
use crate::key::dense::{child_image_keys, image_keys};
use crate::key::occupancy::{canonical_occupancy, least_image, occupancy_images};
use crate::key::{Keyed, PackedKey, canonical_key};

impl<G: Keyed> Worker<'_, G> {
    /// Classifies the parents of `chunk` and generates their children, with
    /// the copy compiled for this CPU: the AVX2 move generator after a
    /// run-time check, the portable one elsewhere (the same counts).
    pub(super) fn chunk(&mut self, chunk: &[Record], index: usize, part: &std::path::Path) -> Result<(), LayersError> {
        if index != self.shape_part {
            self.flush_shapes();
            self.shape_part = index;
        }
        self.shape_records += chunk.len() as u64;
        #[cfg(target_arch = "x86_64")]
        if let Some(_avx2) = self.avx2 {
            // SAFETY: the token proves the CPU has the AVX2 level.
            return unsafe { chunk_avx2(self, chunk, part) };
        }
        self.chunk_with::<false>(chunk, part)
    }

    /// Classifies each parent of `chunk` (a part's records in key order)
    /// and generates its children.
    #[inline(always)]
    pub(super) fn chunk_with<const FAST: bool>(
        &mut self,
        chunk: &[Record],
        part: &std::path::Path,
    ) -> Result<(), LayersError> {
        self.chunk_shapes.clear();
        for (i, &(stored, m)) in chunk.iter().enumerate() {
            let key = G::Key::from_u128(from_stored(stored, Self::SIDE));
            // a parent's images' keys make its children's (read with its
            // digits); a class of the last layer needs its position only
            // (its own key stands in for the images' keys, never read)
            let unpacked = if self.generate {
                self.unpacker.unpack_with_images(key)
            } else {
                self.unpacker.unpack(key).map(|p| (p, [key; 4]))
            };
            let (p, keys) = unpacked.map_err(|e| {
                LayersError::File(FrameError::Corrupt {
                    path: part.to_path_buf(),
                    kind: "layer file",
                    detail: e.to_string(),
                })
            })?;
            // the second position of a board already counted
            let twin = stored & 1 == 1 && i > 0 && chunk[i - 1].0 == stored - 1;
            let (orbit, shape, occupancy) = self.tally_class(&p, m, twin);
            let (me, opp) = (p.mover().0, p.opponent().0);
            let legal = moves::<G, FAST>(me, opp);
            if legal != 0 {
                let games = games_times(m, legal.count_ones() as u64);
                self.found.entering.games = add_games(self.found.entering.games, games);
                if self.generate {
                    self.children::<FAST>(&p, &keys, m, legal, &occupancy)?;
                }
            } else if moves::<G, FAST>(opp, me) != 0 {
                self.passing(&p, stored, m, orbit, shape)?;
            } else {
                let f = &mut self.found;
                f.counts.terminal_classes += 1;
                f.counts.terminal_positions += orbit;
                f.counts.outcomes.record(p.disc_difference(), orbit);
                if !twin {
                    f.counts.terminal_boards += orbit;
                }
                f.ended = add_games(f.ended, m);
            }
        }
        self.shapes.add_all(&self.chunk_shapes);
        Ok(())
    }

    /// Counts class `p`, reached by `m` games (`twin`: the other position
    /// of its board was counted just before): its positions, boards, games
    /// and shape. Returns the size of its orbit, its canonical occupancy
    /// and the images of its occupancy.
    #[inline(always)]
    pub(super) fn tally_class(&mut self, p: &Position<G>, m: u128, twin: bool) -> (u64, u64, [u64; 4]) {
        let (me, opp) = (p.mover().0, p.opponent().0);
        // the orbit, on bitboards: a symmetry fixes the position when it
        // fixes its occupancy and the mover's discs
        let occupancy = occupancy_images::<G>(me | opp);
        let movers = if occupancy[1..].contains(&occupancy[0]) { occupancy_images::<G>(me) } else { [0; 4] };
        let fixed = 1 + (1..4).filter(|&s| occupancy[s] == occupancy[0] && movers[s] == me).count() as u32;
        let orbit = crate::symmetry::orbit_size(fixed) as u64;
        let f = &mut self.found;
        f.counts.classes += 1;
        f.counts.positions += orbit;
        if !twin {
            f.counts.boards += orbit;
        }
        f.mass = add_games(f.mass, m);
        // the class's multiplicity is the games reaching any of its
        // positions; the orbit's positions share them equally (orbits of
        // 1, 2 or 4: shifts, not 128-bit divisions)
        assert!(m & (orbit as u128 - 1) == 0, "{m} games do not divide over an orbit of {orbit}");
        f.spread.record(m >> orbit.trailing_zeros(), orbit);
        // the shape: the games reaching each image of the occupancy from
        // this class (its positions spread evenly over the images), tallied
        // after the chunk, with the table's cache lines fetched ahead
        let (shape, images) = least_image(&occupancy);
        assert!(m & (images as u128 - 1) == 0, "{m} games do not divide over {images} shapes");
        self.chunk_shapes.push((shape, m >> images.trailing_zeros()));
        (orbit, shape, occupancy)
    }

    /// Buffers the children of parent `p` (its class's representative,
    /// whose images have the dense keys `keys`, reached by `m` games), one
    /// for each move of `legal`: by discs, a child that must pass is
    /// followed by the same board with the other side to move.
    #[inline(always)]
    pub(super) fn children<const FAST: bool>(
        &mut self,
        p: &Position<G>,
        keys: &[G::Key; 4],
        m: u128,
        legal: u64,
        occupancy: &[u64; 4],
    ) -> Result<(), LayersError> {
        let (me, opp) = (p.mover().0, p.opponent().0);
        let black = p.side_to_move() == Color::Black;
        // the images' keys give every child's keys by additions
        debug_assert_eq!(*keys, image_keys(p));
        let mut left = legal;
        while left != 0 {
            let sq = left.trailing_zeros();
            left &= left - 1;
            // the partition first, from the occupancy alone: a child of a
            // partition that is not kept costs no more
            // (the images of a union are the unions of the images: the
            // parent's occupancy's and the new square's, from a table)
            let square = &self.square_images[sq as usize];
            let shape = (occupancy[0] | square[0])
                .min(occupancy[1] | square[1])
                .min((occupancy[2] | square[2]).min(occupancy[3] | square[3]));
            debug_assert_eq!(shape, canonical_occupancy::<G>(me | opp | (1u64 << sq)).0);
            let j = partition_of(shape, self.split.len() as u32) as usize;
            if self.split[j].absent() {
                continue;
            }
            let flipped = flips::<G, FAST>(me, opp, sq);
            let ck = child_image_keys(self.tables, p, keys, sq, flipped);
            let canon = ck[0].min(ck[1]).min(ck[2].min(ck[3]));
            debug_assert_eq!(canon, canonical_key(&p.play(sq)));
            self.push(canon, m, j)?;
            let canon = canon.to_u128();
            if self.by == LayerBy::Discs {
                let (c_me, c_opp) = crate::board::movegen::play(me, opp, sq, flipped);
                if moves::<G, FAST>(c_me, c_opp) == 0 && moves::<G, FAST>(c_opp, c_me) != 0 {
                    // the child must pass: the same board with the
                    // parent's side to move again
                    let passed = Self::other_side(canon, !black);
                    debug_assert_eq!(passed, canonical_key(&p.play(sq).pass()).to_u128());
                    self.push(G::Key::from_u128(passed), m, j)?;
                }
            }
        }
        Ok(())
    }

    /// Counts class `p` (stored key `stored`, `m` games, orbit `orbit`,
    /// canonical occupancy `shape`), whose mover must pass; by ply, its
    /// games go on to the next layer through the pass.
    #[inline(always)]
    pub(super) fn passing(
        &mut self,
        p: &Position<G>,
        stored: u128,
        m: u128,
        orbit: u64,
        shape: u64,
    ) -> Result<(), LayersError> {
        let f = &mut self.found;
        f.counts.pass_classes += 1;
        f.counts.pass_positions += orbit;
        if self.by == LayerBy::Ply {
            f.entering.games = add_games(f.entering.games, m);
            f.entering.passes = add_games(f.entering.passes, m);
            if self.generate {
                // every image shifts by the side term alike
                let passed = Self::other_side(from_stored(stored, Self::SIDE), p.side_to_move() == Color::Black);
                debug_assert_eq!(passed, canonical_key(&p.pass()).to_u128());
                self.push(G::Key::from_u128(passed), m, partition_of(shape, self.split.len() as u32) as usize)?;
            }
        }
        Ok(())
    }

    /// The key of the same board with the other side to move: the side
    /// term of a key is `SIDE` (White to move adds it).
    #[inline(always)]
    pub(super) const fn other_side(k: u128, to_white: bool) -> u128 {
        if to_white { k + Self::SIDE } else { k - Self::SIDE }
    }
}

/// The moves of `me` against `opp`: in the copy compiled for AVX2
/// (`FAST`), with its instructions.
#[inline(always)]
fn moves<G: Keyed, const FAST: bool>(me: u64, opp: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if FAST {
        // SAFETY: FAST only in the copy compiled for AVX2, called after the
        // run-time check.
        return unsafe { crate::board::movegen::legal_moves_avx2::<G>(me, opp) };
    }
    crate::board::movegen::legal_moves::<G>(me, opp)
}

/// The discs a move of `me` on `sq` flips, as [`moves`] chooses its copy.
#[inline(always)]
fn flips<G: Keyed, const FAST: bool>(me: u64, opp: u64, sq: u32) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if FAST {
        // SAFETY: as in `moves`.
        return unsafe { crate::board::movegen::flips_avx2::<G>(me, opp, sq) };
    }
    crate::board::movegen::flips::<G>(me, opp, sq)
}

on_cpu!(
    avx2,
    /// [`Worker::chunk`] compiled for the AVX2 level (its move generator
    /// inlined with those instructions).
    pub(super) fn chunk_avx2<G: Keyed>(
        w: &mut Worker<'_, G>,
        chunk: &[Record],
        part: &std::path::Path,
    ) -> Result<(), LayersError> {
        w.chunk_with::<true>(chunk, part)
    }
);
