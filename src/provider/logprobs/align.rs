//! Where each token lies in the answer's text. The tokens usually spell the
//! content exactly. llama.cpp's server may leave out of the content what the
//! model wrote around the JSON (a stray backtick before it, a newline after
//! it) while its logprobs still carry those tokens: the content is then found
//! inside the tokens' text, where it must occur exactly once, so that every
//! byte of it has one token. Tokens may also stop before the content ends (a
//! server that stopped sending them, the cap on how many are kept): their
//! end must then spell the content's beginning at exactly one place, and
//! what lies past the last token has none.

use super::TokenLogprob;

/// The tokens laid end to end, and where the content sits among them.
#[derive(Debug)]
pub(super) struct Aligned {
    /// The tokens' bytes (where sent, else their text), one after another.
    text: Vec<u8>,
    /// Where each token starts in `text`.
    starts: Vec<usize>,
    /// Where the content starts in `text`.
    shift: usize,
    /// The content's length.
    len: usize,
}

impl Aligned {
    /// None when the tokens' text does not hold the content (or, where the
    /// tokens stop before its end, its beginning) at exactly one place.
    pub(super) fn new(content: &str, tokens: &[TokenLogprob]) -> Option<Aligned> {
        let mut text = Vec::new();
        let mut starts = Vec::with_capacity(tokens.len());
        for t in tokens {
            starts.push(text.len());
            text.extend_from_slice(t.bytes.as_deref().unwrap_or(t.token.as_bytes()));
        }
        let shift = if text == content.as_bytes() {
            0
        } else {
            let needle = content.as_bytes();
            if needle.is_empty() {
                return None;
            }
            match memchr::memmem::find(&text, needle) {
                Some(at) => {
                    // Twice would leave it open which tokens are the answer's.
                    if memchr::memmem::find(&text[at + 1..], needle).is_some() {
                        return None;
                    }
                    at
                }
                None => beginning(&text, needle)?,
            }
        };
        Some(Aligned {
            text,
            starts,
            shift,
            len: content.len(),
        })
    }

    /// The token holding the content's byte `at`, with what of the token
    /// comes before that byte (its lead: `"` or ` ` before a value); None
    /// past the content, or when the lead is not whole characters.
    pub(super) fn token_at(&self, at: usize) -> Option<(usize, &str)> {
        if at >= self.len {
            return None;
        }
        let at = at + self.shift;
        if at >= self.text.len() {
            // Past the last token that arrived.
            return None;
        }
        let i = self.starts.partition_point(|&s| s <= at).checked_sub(1)?;
        let lead = std::str::from_utf8(&self.text[self.starts[i]..at]).ok()?;
        Some((i, lead))
    }
}

/// Where in `text` the content begins when the tokens stop before its end:
/// the start of the one end of `text` that spells a beginning of `content`.
/// None when no end does, or when several do (tokens ending in `{` could
/// hold the content from their start or only its first byte).
fn beginning(text: &[u8], content: &[u8]) -> Option<usize> {
    // border[i]: the longest beginning of `content` that also ends
    // `content[..=i]` (Knuth–Morris–Pratt), linear in both lengths.
    let mut border = vec![0usize; content.len()];
    let mut k = 0;
    for i in 1..content.len() {
        while k > 0 && content[i] != content[k] {
            k = border[k - 1];
        }
        if content[i] == content[k] {
            k += 1;
        }
        border[i] = k;
    }
    // The longest end of `text` that is a beginning of `content`.
    let mut k = 0;
    for &b in text {
        while k > 0 && (k == content.len() || b != content[k]) {
            k = border[k - 1];
        }
        if b == content[k] {
            k += 1;
        }
    }
    // The shorter ones are the borders of `content[..k]`: none may exist.
    (k > 0 && k < content.len() && border[k - 1] == 0).then(|| text.len() - k)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(pieces: &[&str]) -> Vec<TokenLogprob> {
        pieces
            .iter()
            .map(|p| TokenLogprob {
                token: p.to_string(),
                logprob: -0.1,
                top: Vec::new(),
                bytes: None,
            })
            .collect()
    }

    #[test]
    fn tokens_that_spell_the_content_place_each_byte() {
        let a = Aligned::new(
            r#"{"a":"AGREE"}"#,
            &toks(&[r#"{"a":""#, "AG", "REE", r#""}"#]),
        )
        .unwrap();
        assert_eq!(a.token_at(6), Some((1, "")));
        assert_eq!(a.token_at(9), Some((2, "R")));
        assert_eq!(a.token_at(13), None);
    }

    #[test]
    fn content_trimmed_of_what_surrounds_the_json_is_found_among_the_tokens() {
        // llama.cpp's content lacks the backtick before and the newline after.
        let a = Aligned::new(
            r#"{"a": "AGREE"}"#,
            &toks(&["`", "{\"a\":", " \"", "AG", "REE", "\"}\n"]),
        );
        let a = a.unwrap();
        assert_eq!(a.token_at(0), Some((1, "")));
        assert_eq!(
            a.token_at(6),
            Some((2, " ")),
            "the quote's token, after its space"
        );
        assert_eq!(a.token_at(7), Some((3, "")));
        assert_eq!(a.token_at(13), Some((5, "\"")));
        // The newline the content lacks is no part of it.
        assert_eq!(a.token_at(14), None);
    }

    #[test]
    fn tokens_that_stop_before_the_content_ends_place_what_they_hold() {
        // A server that stopped sending probabilities (or jury's cap on
        // them): the tokens spell the content's beginning, after a lead.
        let content = r#"{"a":"AGREE","b":"DISAGREE"}"#;
        for lead in ["", "`"] {
            let mut pieces = vec![lead, r#"{"a":""#, "AG", "REE", r#"",""#];
            pieces.retain(|p| !p.is_empty());
            let a = Aligned::new(content, &toks(&pieces)).expect(lead);
            let first = usize::from(!lead.is_empty());
            assert_eq!(a.token_at(0), Some((first, "")));
            assert_eq!(a.token_at(6), Some((first + 1, "")), "AGREE's first token");
            assert_eq!(a.token_at(13), Some((first + 3, "\",")));
            // `b` and its value: no token arrived for them.
            assert_eq!(a.token_at(14), None);
            assert_eq!(a.token_at(18), None);
        }
    }

    #[test]
    fn tokens_whose_end_could_also_start_the_content_are_not_placed() {
        // Ending in `{`, the tokens could hold the content from their start
        // or only its first byte, after text the server left out of it.
        let content = r#"{"a":1},{"b":2}"#;
        assert!(Aligned::new(content, &toks(&[r#"{"a":1},"#, "{"])).is_none());
        // Tokens that stray from the content after its start place nothing.
        assert!(Aligned::new(content, &toks(&[r#"{"a":2"#])).is_none());
    }

    #[test]
    fn content_the_tokens_do_not_hold_once_is_not_placed() {
        // Not there: a different value, a gap in the middle.
        assert!(Aligned::new(r#"{"a":4}"#, &toks(&[r#"{"a":"#, "5}"])).is_none());
        assert!(Aligned::new(r#"{"a":4}"#, &toks(&[r#"{"a""#, "4}"])).is_none());
        // Twice: which copy is the answer's is unknown.
        assert!(Aligned::new("{}", &toks(&["{}", " ", "{}"])).is_none());
        assert!(Aligned::new("", &toks(&["{}"])).is_none());
    }
}
