//! How a label record says its combination was chosen, as jury's exports
//! write it: `sample_order` `random` (or `sampled: true`) with its
//! `sample_seed`, or `active` with `pi` (the probability one draw of the
//! active order picks the combination), `sample_seed`, `sample_draw` (the
//! first draw that picked it) and `sample_draws` (how many did; 1 when
//! absent). Numbers may come as text (a CSV cell).

use super::fields::{FieldError, kind, pick};
use crate::store::{ActiveDraw, SampleSeed};
use serde_json::{Map, Value};

/// A label's recorded selection.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LabelSampling {
    Random(SampleSeed),
    Active(ActiveDraw),
}

fn number(obj: &Map<String, Value>, names: &[&str]) -> Result<Option<(String, f64)>, FieldError> {
    match pick(obj, names) {
        None | Some((_, Value::Null)) => Ok(None),
        Some((_, Value::String(s))) if s.trim().is_empty() => Ok(None),
        Some((k, Value::Number(n))) => Ok(n.as_f64().map(|x| (k.to_string(), x))),
        Some((k, Value::String(s))) => s
            .trim()
            .parse::<f64>()
            .map(|x| Some((k.to_string(), x)))
            .map_err(|_| FieldError::new(k, format!("must be a number, found {s:?}"))),
        Some((k, other)) => Err(FieldError::new(
            k,
            format!("must be a number, found {}", kind(other)),
        )),
    }
}

fn whole(obj: &Map<String, Value>, names: &[&str], min: u64) -> Result<Option<u64>, FieldError> {
    match number(obj, names)? {
        None => Ok(None),
        Some((_, x)) if x.fract() == 0.0 && x >= min as f64 && x < 2f64.powi(63) => {
            Ok(Some(x as u64))
        }
        Some((k, x)) => Err(FieldError::new(
            k,
            format!("must be a whole number ≥ {min}, found {x}"),
        )),
    }
}

/// The record's selection: `None` when it says none (or `sampled: false`).
pub fn label_sampling(obj: &Map<String, Value>) -> Result<Option<LabelSampling>, FieldError> {
    let order = match pick(obj, &["sampleOrder", "sample_order"]) {
        None | Some((_, Value::Null)) => None,
        Some((_, Value::String(s))) if s.trim().is_empty() => None,
        Some((_, Value::String(s))) if matches!(s.trim(), "active" | "random") => {
            Some(s.trim().to_string())
        }
        Some((k, v)) => {
            return Err(FieldError::new(
                k,
                format!("must be \"random\" or \"active\", found {v}"),
            ));
        }
    };
    if order.as_deref() != Some("active") {
        if let Some((k, _)) = number(obj, &["pi"])?
            && order.is_some()
        {
            return Err(FieldError::new(
                &k,
                "is the active order's draw probability: sample_order must be \"active\"",
            ));
        }
        let random = super::records::label_sample(obj)?;
        return Ok(match (order, random) {
            (Some(_), None) => Some(LabelSampling::Random(whole(
                obj,
                &["sampleSeed", "sample_seed"],
                0,
            )?)),
            (_, r) => r.map(LabelSampling::Random),
        });
    }
    let Some((k, p)) = number(obj, &["pi"])? else {
        return Err(FieldError::new(
            "pi",
            "is needed with sample_order \"active\": the probability one draw picked this combination",
        ));
    };
    if !(p > 0.0 && p <= 1.0) {
        return Err(FieldError::new(
            &k,
            format!("must be a probability in (0, 1], found {p}"),
        ));
    }
    let draws = whole(obj, &["sampleDraws", "sample_draws"], 1)?.unwrap_or(1);
    Ok(Some(LabelSampling::Active(ActiveDraw {
        seed: whole(obj, &["sampleSeed", "sample_seed"], 0)?,
        p,
        draw: whole(obj, &["sampleDraw", "sample_draw"], 1)?,
        draws: u32::try_from(draws).map_err(|_| FieldError::new("sample_draws", "is too large"))?,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(v: serde_json::Value) -> Result<Option<LabelSampling>, FieldError> {
        label_sampling(v.as_object().unwrap())
    }

    #[test]
    fn the_export_fields_read_back_and_bad_ones_are_named() {
        let a = read(serde_json::json!({"sample_order": "active", "pi": 0.004, "sample_seed": 7, "sample_draw": 3})).unwrap();
        assert_eq!(
            a,
            Some(LabelSampling::Active(ActiveDraw {
                seed: Some(7),
                p: 0.004,
                draw: Some(3),
                draws: 1
            }))
        );
        // A CSV cell.
        let c =
            read(serde_json::json!({"sample_order": "active", "pi": "0.5", "sample_draws": "2"}))
                .unwrap();
        assert!(matches!(c, Some(LabelSampling::Active(d)) if d.draws == 2 && d.p == 0.5));
        assert_eq!(
            read(serde_json::json!({"sample_order": "random", "sample_seed": 9})).unwrap(),
            Some(LabelSampling::Random(Some(9)))
        );
        assert_eq!(
            read(serde_json::json!({"sampled": true})).unwrap(),
            Some(LabelSampling::Random(None))
        );
        assert_eq!(read(serde_json::json!({})).unwrap(), None);
        for (bad, field) in [
            (serde_json::json!({"sample_order": "active"}), "pi"),
            (serde_json::json!({"sample_order": "active", "pi": 0}), "pi"),
            (
                serde_json::json!({"sample_order": "active", "pi": "x"}),
                "pi",
            ),
            (serde_json::json!({"sample_order": "later"}), "sample_order"),
            (
                serde_json::json!({"sample_order": "random", "pi": 0.1}),
                "pi",
            ),
            (
                serde_json::json!({"sample_order": "active", "pi": 0.1, "sample_draws": 0}),
                "sample_draws",
            ),
        ] {
            assert_eq!(read(bad.clone()).unwrap_err().field, field, "{bad}");
        }
    }
}
