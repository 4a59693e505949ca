//! The AwAg judge (modes 1, 2 and 3), the primary protocol.

pub mod parse;
pub mod request;

use crate::domain::{ComboKey, Item, Mode, Persona, Perspective, Protocol, Scale};
use crate::prompt::PromptSet;
use crate::protocol::{JudgeProtocol, ParseOutcome, ProtocolError, Unit};
use crate::provider::ChatCall;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

/// Everything an AwAg run needs to write its requests.
pub struct Awag {
    pub mode: Mode,
    pub prompts: Arc<PromptSet>,
    pub persona: Persona,
    pub perspectives: Vec<Perspective>,
    pub items: Arc<crate::protocol::ItemBook>,
}

impl Awag {
    /// Every (item, classification, perspective) unit for these items, in order.
    pub fn units(&self, item_ids: &[String]) -> Vec<Unit> {
        let mut out = Vec::new();
        for id in item_ids {
            let Some(item) = self.items.get(id).filter(|i| i.kind.is_empty()) else {
                continue;
            };
            for c in &item.classifications {
                for p in &self.perspectives {
                    out.push(Unit {
                        key: ComboKey::new(&item.id, &c.id, &p.id),
                        asked_selection: c.selected_text().to_string(),
                    });
                }
            }
        }
        out
    }

    fn perspective(&self, id: &str) -> Option<&Perspective> {
        self.perspectives.iter().find(|p| p.id == id)
    }
}

impl JudgeProtocol for Awag {
    fn protocol(&self) -> Protocol {
        Protocol::Awag
    }

    fn mode(&self) -> Option<Mode> {
        Some(self.mode)
    }

    fn scale(&self) -> Scale {
        self.mode.scale()
    }

    fn units(&self, item_ids: &[String]) -> Vec<Unit> {
        Awag::units(self, item_ids)
    }

    fn batches(&self, units: Vec<Unit>, batch_size: usize) -> Vec<Vec<Unit>> {
        let k = batch_size.max(1);
        match self.mode {
            // K items per request, each with all its wanted combinations.
            Mode::One => {
                let mut groups: Vec<Vec<Unit>> = Vec::new();
                let mut at: HashMap<String, usize> = HashMap::new();
                for u in units {
                    match at.get(u.key.item_id.as_str()) {
                        Some(&g) => groups[g].push(u),
                        None => {
                            at.insert(u.key.item_id.clone(), groups.len());
                            groups.push(vec![u]);
                        }
                    }
                }
                drop(at);
                let mut out = Vec::with_capacity(groups.len().div_ceil(k));
                let mut groups = groups.into_iter().peekable();
                while groups.peek().is_some() {
                    out.push(groups.by_ref().take(k).flatten().collect());
                }
                out
            }
            // K entries per request; one perspective per request, in the
            // order the perspectives first appear.
            Mode::Two | Mode::Three => {
                let mut by_persp: Vec<(String, Vec<Vec<Unit>>)> = Vec::new();
                for u in units {
                    let at = match by_persp
                        .iter()
                        .position(|(p, _)| *p == u.key.perspective_id)
                    {
                        Some(at) => at,
                        None => {
                            by_persp.push((u.key.perspective_id.clone(), Vec::new()));
                            by_persp.len() - 1
                        }
                    };
                    let batches = &mut by_persp[at].1;
                    match batches.last_mut() {
                        Some(b) if b.len() < k => b.push(u),
                        _ => batches.push(vec![u]),
                    }
                }
                by_persp.into_iter().flat_map(|(_, v)| v).collect()
            }
        }
    }

    fn build_call(&self, batch: &[Unit], boundary: &str) -> Result<ChatCall, ProtocolError> {
        let item = |id: &str| {
            self.items
                .get(id)
                .ok_or_else(|| ProtocolError::NoItem(id.to_string()))
        };
        let request = match self.mode {
            Mode::One => {
                let (mut owned, mut wanted) = (Vec::new(), Vec::new());
                let mut persp_ids: BTreeSet<&str> = BTreeSet::new();
                for (_, (item_id, units)) in request::by_item(batch) {
                    owned.push(item(&item_id)?);
                    wanted.push(
                        units
                            .iter()
                            .map(|u| u.key.classification_id.as_str())
                            .collect::<BTreeSet<&str>>(),
                    );
                    persp_ids.extend(units.iter().map(|u| u.key.perspective_id.as_str()));
                }
                let items: Vec<(&Item, BTreeSet<&str>)> = owned.iter().zip(wanted).collect();
                let persps: Vec<&Perspective> = self
                    .perspectives
                    .iter()
                    .filter(|p| persp_ids.contains(p.id.as_str()))
                    .collect();
                request::mode1_request(&self.persona, &persps, &items)
            }
            Mode::Two | Mode::Three => {
                let pid = batch
                    .first()
                    .map(|u| u.key.perspective_id.as_str())
                    .unwrap_or("");
                let persp = self
                    .perspective(pid)
                    .ok_or_else(|| ProtocolError::NoPerspective(pid.to_string()))?;
                let owned = batch
                    .iter()
                    .map(|u| item(&u.key.item_id))
                    .collect::<Result<Vec<Item>, _>>()?;
                let entries: Vec<(&Item, &str)> = owned
                    .iter()
                    .zip(batch)
                    .map(|(it, u)| (it, u.key.classification_id.as_str()))
                    .collect();
                request::mode23_request(&self.persona, persp, &entries)
            }
        };
        Ok(request::call(&self.prompts, self.mode, &request, boundary))
    }

    fn parse(&self, batch: &[Unit], answer: &str) -> ParseOutcome {
        parse::validate(self.mode, batch, answer)
    }

    fn partial_texts(
        &self,
        _batch: &[Unit],
        partial: &serde_json::Value,
    ) -> Vec<(ComboKey, String)> {
        parse::partial_texts(self.mode, partial)
    }
}

/// The call that would be sent for one item (the `jury prompt` command and the TUI's prompt view).
pub fn preview(
    prompts: Arc<PromptSet>,
    mode: Mode,
    persona: &Persona,
    perspectives: &[Perspective],
    item: &Item,
    boundary: &str,
) -> Result<ChatCall, ProtocolError> {
    let mut items = HashMap::new();
    // As a run would send it (long texts cut with a mark).
    items.insert(item.id.clone(), super::caps::for_judge(item.clone()));
    let awag = Awag {
        mode,
        prompts,
        persona: persona.clone(),
        perspectives: perspectives.to_vec(),
        items: Arc::new(items.into()),
    };
    let units = awag.units(std::slice::from_ref(&item.id));
    let batches = awag.batches(units, usize::MAX);
    let first = batches.first().ok_or(ProtocolError::NoClassifications)?;
    awag.build_call(first, boundary)
}
