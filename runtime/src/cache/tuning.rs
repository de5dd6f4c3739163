//! The payload of a tuning entry: which `@triton.autotune` config won, and the table it won.
//!
//! The winner is what a later launch with the same key uses without timing anything; the table
//! (each config's median or why it failed) is kept so that the entry says what was measured.
//! A record whose winner is not one of the kernel's configs is refused when loaded
//! ([`TuningRecord::check`]), as a corrupt entry: the key covers the kernel's source, so this
//! happens only to a damaged or forged entry.

use super::codec::{DecodeError, Decoder, Encoder};

/// One config's outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct Trial {
    /// The config's index in the decorator's list.
    pub index: usize,
    /// `{BLOCK_SIZE=256, num_warps=4, num_stages=2}`.
    pub config: String,
    /// The median time of a launch, or the first line of why the config failed.
    pub outcome: Result<f64, String>,
}

/// The result of tuning one kernel for one key on one device.
#[derive(Clone, Debug, PartialEq)]
pub struct TuningRecord {
    /// The index of the fastest config.
    pub chosen: usize,
    /// Every config, in the decorator's order.
    pub trials: Vec<Trial>,
}

impl TuningRecord {
    /// Checks the record against the kernel's configs (by their descriptions): the winner must be
    /// one of them, and have timed.
    pub fn check(&self, configs: &[String]) -> Result<(), DecodeError> {
        let Some(description) = configs.get(self.chosen) else {
            return Err(DecodeError(format!(
                "it chose config {}, and the kernel has {} configs",
                self.chosen,
                configs.len()
            )));
        };
        let winner = self.trials.iter().find(|t| t.index == self.chosen);
        match winner {
            Some(trial) if trial.config == *description && trial.outcome.is_ok() => Ok(()),
            _ => Err(DecodeError(format!("its config {} is not {description}", self.chosen))),
        }
    }
}

pub fn encode(record: &TuningRecord) -> Vec<u8> {
    let mut e = Encoder::new();
    e.u32(record.chosen as u32).count(record.trials.len());
    for trial in &record.trials {
        e.u32(trial.index as u32).str(&trial.config);
        match &trial.outcome {
            Ok(median_ms) => e.bool(true).f64(*median_ms),
            Err(reason) => e.bool(false).str(reason),
        };
    }
    e.finish()
}

pub fn decode(bytes: &[u8]) -> Result<TuningRecord, DecodeError> {
    let mut d = Decoder::new(bytes);
    let chosen = d.u32()? as usize;
    let count = d.count(9)?;
    let mut trials = Vec::with_capacity(count);
    for _ in 0..count {
        let index = d.u32()? as usize;
        let config = d.string()?;
        let outcome = if d.bool()? { Ok(d.f64()?) } else { Err(d.string()?) };
        trials.push(Trial { index, config, outcome });
    }
    d.finish()?;
    Ok(TuningRecord { chosen, trials })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> TuningRecord {
        TuningRecord {
            chosen: 1,
            trials: vec![
                Trial { index: 0, config: "{B=64}".into(), outcome: Err("does not compile".into()) },
                Trial { index: 1, config: "{B=256}".into(), outcome: Ok(0.25) },
            ],
        }
    }

    #[test]
    fn round_trips_and_checks_the_winner() {
        let record = record();
        assert_eq!(decode(&encode(&record)), Ok(record.clone()));
        let configs = vec!["{B=64}".to_string(), "{B=256}".to_string()];
        assert_eq!(record.check(&configs), Ok(()));
        assert!(record.check(&configs[..1]).unwrap_err().0.contains("the kernel has 1 configs"));
        let renamed = vec!["{B=64}".to_string(), "{B=512}".to_string()];
        assert!(record.check(&renamed).is_err());
        let failed_winner = TuningRecord { chosen: 0, ..record };
        assert!(failed_winner.check(&configs).is_err());
    }
}
