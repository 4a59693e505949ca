//! The one reading of a chat-completions chunk (streamed) or answer (whole).
//!
//! Servers bend the format: arguments as an object instead of a string, a
//! number where an id goes, `null` or a string where an object goes, the
//! legacy `function_call`. Every field here is lenient: a value of the wrong
//! type reads as absent, never as an error. The same types read straight from
//! the payload text, borrowing what needs no unescaping (the streaming hot
//! path builds no [`Value`] tree), and from an already parsed [`Value`] (a
//! whole answer), so both front doors share this one reading.

use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, de};
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

/// One chunk, or a whole non-streamed answer.
#[derive(Deserialize, Default)]
#[serde(default)]
pub struct Chunk<'a> {
    #[serde(borrow)]
    pub choices: First<Obj<Choice<'a>>>,
    pub usage: Obj<Usage>,
    /// llama.cpp's own figures (`cache_n`: prompt tokens from its cache).
    pub timings: Obj<Timings>,
    /// `{"error": ...}` instead of an answer (`null`: none).
    pub error: Option<Value>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct Choice<'a> {
    #[serde(borrow)]
    pub finish_reason: Str<'a>,
    /// Set when the field is there at all: a `delta` of `null` still wins
    /// over a `message`.
    #[serde(borrow, deserialize_with = "present")]
    pub delta: Option<Obj<Delta<'a>>>,
    #[serde(borrow, deserialize_with = "present")]
    pub message: Option<Obj<Delta<'a>>>,
    /// `{content: [{token, logprob, top_logprobs}]}` when asked for; read by
    /// [`super::logprobs`].
    pub logprobs: Option<Value>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct Delta<'a> {
    #[serde(borrow)]
    pub content: Str<'a>,
    #[serde(borrow)]
    pub refusal: Str<'a>,
    #[serde(borrow)]
    pub tool_calls: Seq<Obj<ToolCall<'a>>>,
    /// The legacy single-call shape.
    #[serde(borrow)]
    pub function_call: Obj<Function<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct ToolCall<'a> {
    pub index: Num,
    #[serde(borrow)]
    pub id: Str<'a>,
    #[serde(borrow)]
    pub function: Obj<Function<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct Function<'a> {
    #[serde(borrow)]
    pub name: Str<'a>,
    #[serde(borrow)]
    pub arguments: Args<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct Usage {
    pub prompt_tokens: Num,
    pub completion_tokens: Num,
    pub prompt_tokens_details: Obj<Details>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct Details {
    pub cached_tokens: Num,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct Timings {
    pub cache_n: Num,
}

impl Usage {
    /// The usage, or None when the server gave neither token count.
    pub fn read(&self, timings: Option<&Timings>) -> Option<crate::domain::Usage> {
        if self.prompt_tokens.0.is_none() && self.completion_tokens.0.is_none() {
            return None;
        }
        let cached = self
            .prompt_tokens_details
            .0
            .as_ref()
            .and_then(|d| d.cached_tokens.0)
            .or_else(|| timings.and_then(|t| t.cache_n.0));
        Some(crate::domain::Usage {
            prompt_tokens: self.prompt_tokens.0.unwrap_or(0),
            completion_tokens: self.completion_tokens.0.unwrap_or(0),
            cached_tokens: cached.unwrap_or(0),
        })
    }
}

/// The field was there, whatever its value (serde's `Option` reads `null` as
/// absent).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// An object read as `T`; any other value as None.
pub struct Obj<T>(pub Option<T>);
/// A string; any other value as None.
#[derive(Default)]
pub struct Str<'a>(pub Option<Cow<'a, str>>);
/// A non-negative integer; any other value (a float, a string) as None.
#[derive(Default)]
pub struct Num(pub Option<u64>);
/// An array; any other value as None.
pub struct Seq<T>(pub Option<Vec<T>>);
/// The first element of an array; an empty array or any other value as None.
pub struct First<T>(pub Option<T>);
/// A tool call's arguments: normally a string; some servers send an object,
/// kept as its JSON text. `null` or missing: empty.
pub struct Args<'a>(pub Cow<'a, str>);

/// A type that reads any JSON value, each kind of value its own way; what a
/// kind does not override reads as [`Lenient::absent`].
trait Lenient<'de>: Sized {
    fn absent() -> Self;
    fn map<A: MapAccess<'de>>(mut m: A) -> Result<Self, A::Error> {
        while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Self::absent())
    }
    fn seq<A: SeqAccess<'de>>(mut s: A) -> Result<Self, A::Error> {
        while s.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Self::absent())
    }
    fn text(_: Cow<'de, str>) -> Self {
        Self::absent()
    }
    fn scalar(_: Value) -> Self {
        Self::absent()
    }
}

struct LenientVisitor<T>(PhantomData<T>);

impl<'de, T: Lenient<'de>> Visitor<'de> for LenientVisitor<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<T, E> {
        Ok(T::scalar(Value::Bool(v)))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        Ok(T::scalar(Value::from(v)))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        Ok(T::scalar(Value::from(v)))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        Ok(T::scalar(Value::from(v)))
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<T, E> {
        Ok(T::text(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        Ok(T::text(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<T, E> {
        Ok(T::text(Cow::Owned(v)))
    }
    fn visit_unit<E: de::Error>(self) -> Result<T, E> {
        Ok(T::absent())
    }
    fn visit_none<E: de::Error>(self) -> Result<T, E> {
        Ok(T::absent())
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<T, A::Error> {
        T::map(m)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, s: A) -> Result<T, A::Error> {
        T::seq(s)
    }
}

/// `Deserialize` for a [`Lenient`] type: it takes whatever value comes.
macro_rules! lenient_deserialize {
    (<$g:tt> $ty:ty where $($bound:tt)*) => {
        impl<'de, $g> Deserialize<'de> for $ty where $($bound)* {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                d.deserialize_any(LenientVisitor::<Self>(PhantomData))
            }
        }
    };
}

lenient_deserialize!(<T> Obj<T> where T: Deserialize<'de>);
lenient_deserialize!(<T> Seq<T> where T: Deserialize<'de>);
lenient_deserialize!(<T> First<T> where T: Deserialize<'de>);
lenient_deserialize!(<'a> Str<'a> where 'de: 'a);
lenient_deserialize!(<'a> Args<'a> where 'de: 'a);
impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(LenientVisitor::<Self>(PhantomData))
    }
}

impl<'de, T: Deserialize<'de>> Lenient<'de> for Obj<T> {
    fn absent() -> Self {
        Obj(None)
    }
    fn map<A: MapAccess<'de>>(m: A) -> Result<Self, A::Error> {
        T::deserialize(MapAccessDeserializer::new(m)).map(|t| Obj(Some(t)))
    }
}

impl<'de, T: Deserialize<'de>> Lenient<'de> for Seq<T> {
    fn absent() -> Self {
        Seq(None)
    }
    fn seq<A: SeqAccess<'de>>(mut s: A) -> Result<Self, A::Error> {
        let mut out = Vec::with_capacity(s.size_hint().unwrap_or(1).min(64));
        while let Some(t) = s.next_element()? {
            out.push(t);
        }
        Ok(Seq(Some(out)))
    }
}

impl<'de, T: Deserialize<'de>> Lenient<'de> for First<T> {
    fn absent() -> Self {
        First(None)
    }
    fn seq<A: SeqAccess<'de>>(mut s: A) -> Result<Self, A::Error> {
        let first = s.next_element()?;
        while s.next_element::<IgnoredAny>()?.is_some() {}
        Ok(First(first))
    }
}

impl<'de: 'a, 'a> Lenient<'de> for Str<'a> {
    fn absent() -> Self {
        Str(None)
    }
    fn text(s: Cow<'de, str>) -> Self {
        Str(Some(s))
    }
}

impl<'de> Lenient<'de> for Num {
    fn absent() -> Self {
        Num(None)
    }
    fn scalar(v: Value) -> Self {
        Num(v.as_u64())
    }
}

impl<'de: 'a, 'a> Lenient<'de> for Args<'a> {
    fn absent() -> Self {
        Args(Cow::Borrowed(""))
    }
    fn text(s: Cow<'de, str>) -> Self {
        Args(s)
    }
    fn scalar(v: Value) -> Self {
        Args(Cow::Owned(v.to_string()))
    }
    fn map<A: MapAccess<'de>>(m: A) -> Result<Self, A::Error> {
        let v = Value::deserialize(MapAccessDeserializer::new(m))?;
        Ok(Args(Cow::Owned(v.to_string())))
    }
    fn seq<A: SeqAccess<'de>>(s: A) -> Result<Self, A::Error> {
        let v = Value::deserialize(SeqAccessDeserializer::new(s))?;
        Ok(Args(Cow::Owned(v.to_string())))
    }
}

impl<T> Default for Obj<T> {
    fn default() -> Self {
        Obj(None)
    }
}
impl<T> Default for Seq<T> {
    fn default() -> Self {
        Seq(None)
    }
}
impl<T> Default for First<T> {
    fn default() -> Self {
        First(None)
    }
}
impl Default for Args<'_> {
    fn default() -> Self {
        Args(Cow::Borrowed(""))
    }
}
