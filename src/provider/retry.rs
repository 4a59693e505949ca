//! How long to wait before asking again: the server's `Retry-After`, else
//! exponential backoff with jitter.

use reqwest::header::HeaderMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Parse Retry-After style headers: `retry-after-ms` (milliseconds), then
/// `retry-after` as seconds or an HTTP date. Garbage and negatives → None.
pub fn parse_retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    if let Some(ms) = headers
        .get("retry-after-ms")
        .and_then(|v| v.to_str().ok())
        .and_then(|s| s.trim().parse::<f64>().ok())
        .filter(|ms| ms.is_finite() && *ms >= 0.0)
    {
        return Some(Duration::from_secs_f64((ms / 1000.0).min(1e9)));
    }
    let raw = headers.get("retry-after")?.to_str().ok()?.trim();
    if let Ok(secs) = raw.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(1e9)));
    }
    let when = parse_http_date(raw)?;
    let now_ms = now.duration_since(UNIX_EPOCH).ok()?.as_millis() as i64;
    Some(Duration::from_millis(
        when.saturating_sub(now_ms).max(0) as u64
    ))
}

/// An HTTP date (IMF-fixdate, RFC 850 or asctime) as epoch milliseconds.
fn parse_http_date(s: &str) -> Option<i64> {
    if let Ok(dt) = chrono::DateTime::parse_from_rfc2822(s) {
        return Some(dt.timestamp_millis());
    }
    for fmt in ["%A, %d-%b-%y %H:%M:%S GMT", "%a %b %e %H:%M:%S %Y"] {
        if let Ok(dt) = chrono::NaiveDateTime::parse_from_str(s, fmt) {
            return Some(dt.and_utc().timestamp_millis());
        }
    }
    None
}

/// The wait before retry `n` (0-based): min(base·2ⁿ, cap) minus up to 25 %
/// jitter; `unit` is a uniform draw in [0, 1).
pub fn backoff(base: Duration, cap: Duration, n: u32, unit: f64) -> Duration {
    let factor = 1u32 << n.min(20);
    base.saturating_mul(factor)
        .min(cap)
        .mul_f64(1.0 - 0.25 * unit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn retry_after_forms() {
        let now = UNIX_EPOCH + Duration::from_secs(1_445_412_480); // Wed, 21 Oct 2015 07:28:00 GMT
        let h = |pairs: &[(&'static str, &'static str)]| {
            let mut m = HeaderMap::new();
            for (k, v) in pairs {
                m.insert(*k, HeaderValue::from_static(v));
            }
            parse_retry_after(&m, now)
        };
        assert_eq!(h(&[("retry-after", "0")]), Some(Duration::ZERO));
        assert_eq!(h(&[("retry-after", "2")]), Some(Duration::from_secs(2)));
        assert_eq!(
            h(&[("retry-after", "1.5")]),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            h(&[("retry-after", "86400")]),
            Some(Duration::from_secs(86400))
        );
        assert_eq!(
            h(&[("retry-after-ms", "250"), ("retry-after", "9")]),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            h(&[("retry-after", "Wed, 21 Oct 2015 07:28:03 GMT")]),
            Some(Duration::from_secs(3))
        );
        assert_eq!(
            h(&[("retry-after", "Wednesday, 21-Oct-15 07:28:05 GMT")]),
            Some(Duration::from_secs(5))
        );
        assert_eq!(
            h(&[("retry-after", "Wed Oct 21 07:28:07 2015")]),
            Some(Duration::from_secs(7))
        );
        assert_eq!(
            h(&[("retry-after", "Tue, 20 Oct 2015 07:28:00 GMT")]),
            Some(Duration::ZERO)
        );
        assert_eq!(h(&[("retry-after", "soon")]), None);
        assert_eq!(h(&[("retry-after", "-3")]), None);
        assert_eq!(h(&[]), None);
    }

    #[test]
    fn backoff_doubles_to_the_cap_minus_jitter() {
        let (base, cap) = (Duration::from_millis(500), Duration::from_secs(8));
        assert_eq!(backoff(base, cap, 0, 0.0), base);
        assert_eq!(backoff(base, cap, 2, 0.0), Duration::from_secs(2));
        assert_eq!(backoff(base, cap, 30, 0.0), cap);
        assert_eq!(backoff(base, cap, 1, 0.5), Duration::from_millis(875));
    }
}
