//! A game from the start, as the deciders give it for a reachable
//! position, and its check: replayed with the rules of the board module.

use crate::board::{Geometry, Position, Status};

/// A game from the start: a move (square) or a pass per ply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game<G: Geometry> {
    /// The plies, `None` for a pass.
    pub plies: Vec<Option<u32>>,
    /// The position it ends in.
    pub end: Position<G>,
}

/// A game that does not replay (a defect of the search, never expected).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("ply {ply}: {what}")]
pub struct ReplayError {
    /// The ply (from 1) that failed.
    pub ply: usize,
    /// What was wrong.
    pub what: String,
}

impl<G: Geometry> Game<G> {
    /// Plays the game from the start with the rules of the board module,
    /// refusing an illegal move or pass, and checks where it ends.
    pub fn replay(&self) -> Result<(), ReplayError> {
        let mut p = Position::<G>::start();
        for (i, ply) in self.plies.iter().enumerate() {
            let err = |what: String| ReplayError { ply: i + 1, what };
            p = match (p.status(), ply) {
                (Status::Moves(m), Some(sq)) if m.contains(*sq) => p.play(*sq),
                (Status::Pass, None) => p.pass(),
                (Status::Terminal, _) => return Err(err("the game was over".into())),
                (s, ply) => return Err(err(format!("{ply:?} is not legal here ({s:?})"))),
            };
        }
        if p != self.end {
            return Err(ReplayError { ply: self.plies.len(), what: "the game ends elsewhere".into() });
        }
        Ok(())
    }

    /// The plies as square names (`a1` top left), `pass` for a pass.
    pub fn notation(&self) -> Vec<String> {
        self.plies
            .iter()
            .map(|p| match p {
                Some(sq) => crate::board::square_name(*sq, G::N),
                None => "pass".into(),
            })
            .collect()
    }
}
