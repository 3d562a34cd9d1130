//! "Did you mean …?": the one place that picks the name a typo meant.
//!
//! Names (points, fields, lists, macros, lints, schema keys) are compared
//! with Jaro-Winkler similarity, which forgives a wrong or missing letter
//! anywhere and rewards a common prefix, so `tool.pre_exec` finds
//! `tool.pre_execute`. Keywords are short, so for them a near miss is
//! counted in edits instead (optimal string alignment: a swap of two
//! neighbouring letters is one edit), and an unfinished keyword (`cont`)
//! finds the keyword it starts.

/// How similar a candidate must be to be offered, in Jaro-Winkler terms.
const SIMILAR: f64 = 0.8;

/// The candidate closest to `name`, if one is close enough to be a typo.
pub fn suggest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    closest(candidates, |c| strsim::jaro_winkler(name, c))
}

/// [`suggest`], ignoring case: for names written for another system, whose
/// spelling conventions differ (`pretooluse` for `PreToolUse`).
pub fn suggest_ignoring_case<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let name = name.to_lowercase();
    closest(candidates, |c| {
        strsim::jaro_winkler(&name, &c.to_lowercase())
    })
}

/// The keyword a misspelt or unfinished `word` meant: at most one edit in
/// three letters away (at least one), or a keyword that `word` (three
/// letters or more) begins; `None` when `word` is itself a keyword.
pub fn suggest_keyword<'a>(word: &str, keywords: &[&'a str]) -> Option<&'a str> {
    if keywords.contains(&word) {
        return None;
    }
    let mut best: Option<(usize, &str)> = None;
    for &keyword in keywords {
        let distance = if word.len() >= 3 && keyword.starts_with(word) {
            1
        } else {
            strsim::osa_distance(word, keyword)
        };
        let max = (word.len().max(keyword.len()) / 3).max(1);
        if distance <= max && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, keyword));
        }
    }
    best.map(|(_, keyword)| keyword)
}

fn closest<'a>(
    candidates: impl IntoIterator<Item = &'a str>,
    similarity: impl Fn(&str) -> f64,
) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (similarity(c), c))
        .filter(|(score, _)| *score > SIMILAR)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_find_the_name_a_typo_meant() {
        let points = ["tool.pre_execute", "tool.post_execute", "child.pre_spawn"];
        assert_eq!(suggest("tool.pre_exec", points), Some("tool.pre_execute"));
        assert_eq!(suggest("tool.post_exec", points), Some("tool.post_execute"));
        assert_eq!(suggest("bus.on_whatever", points), None);
        assert_eq!(suggest("PRETOOLUSE", ["PreToolUse"]), None);
        assert_eq!(
            suggest_ignoring_case("PRETOOLUSE", ["PreToolUse"]),
            Some("PreToolUse")
        );
    }

    #[test]
    fn keywords_allow_one_edit_in_three_letters_and_unfinished_words() {
        let keywords = ["continue", "contains", "when", "unless", "abort"];
        assert_eq!(
            suggest_keyword("whne", &keywords),
            Some("when"),
            "a swap is one edit"
        );
        assert_eq!(suggest_keyword("abrot", &keywords), Some("abort"));
        assert_eq!(suggest_keyword("contin", &keywords), Some("continue"));
        assert_eq!(
            suggest_keyword("when", &keywords),
            None,
            "already a keyword"
        );
        assert_eq!(suggest_keyword("xyz", &keywords), None);
    }
}
