//! The target of a dispatch: the component a call is for, with its child
//! and channel instance, and the one reader of target text
//! (`scope::name[/child][#instance]`) that the CLI and rule tests share.

use crate::fql::FqlPattern;

/// The call a dispatch is for: a component, and optionally a child and a
/// channel instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target<'a> {
    /// `scope::target`, e.g. `builtin::llm`.
    pub component: &'a str,
    /// The child id, when the call is made for a child.
    pub child: Option<&'a str>,
    /// The channel instance, when the call names one.
    pub instance: Option<&'a str>,
}

impl<'a> Target<'a> {
    /// A target for a component, with no child and no instance.
    pub fn new(component: &'a str) -> Target<'a> {
        Target {
            component,
            child: None,
            instance: None,
        }
    }

    /// The same target for a child.
    pub fn with_child(self, child: &'a str) -> Target<'a> {
        Target {
            child: Some(child),
            ..self
        }
    }

    /// The same target on a channel instance.
    pub fn with_instance(self, instance: &'a str) -> Target<'a> {
        Target {
            instance: Some(instance),
            ..self
        }
    }

    /// Reads target text, `scope::name[/child][#instance]`
    /// (`builtin::llm/agent-1#primary`): a component with a non-empty scope
    /// and name, and optionally a non-empty child and instance.
    ///
    /// # Errors
    ///
    /// [`TargetError`] saying which part is missing or empty.
    ///
    /// # Example
    ///
    /// ```
    /// use hookc::Target;
    ///
    /// let target = Target::parse("builtin::llm/agent-1#primary")?;
    /// assert_eq!(target.component, "builtin::llm");
    /// assert_eq!(target.child, Some("agent-1"));
    /// assert_eq!(target.instance, Some("primary"));
    /// assert!(Target::parse("llm").is_err());
    /// # Ok::<(), hookc::event::TargetError>(())
    /// ```
    pub fn parse(text: &'a str) -> Result<Target<'a>, TargetError> {
        let (rest, instance) = match text.split_once('#') {
            Some((rest, instance)) => (rest, Some(instance)),
            None => (text, None),
        };
        let (component, child) = match rest.split_once('/') {
            Some((component, child)) => (component, Some(child)),
            None => (rest, None),
        };
        let Some((scope, name)) = component.split_once("::") else {
            return Err(TargetError::MissingSeparator);
        };
        if scope.is_empty() {
            return Err(TargetError::EmptyScope);
        }
        if name.is_empty() {
            return Err(TargetError::EmptyName);
        }
        if child == Some("") {
            return Err(TargetError::EmptyChild);
        }
        if instance == Some("") {
            return Err(TargetError::EmptyInstance);
        }
        Ok(Target {
            component,
            child,
            instance,
        })
    }

    /// True when `pattern` matches this target.
    pub fn is_matched_by(&self, pattern: &FqlPattern) -> bool {
        pattern.matches(self.component, self.child, self.instance)
    }
}

/// Why a text is not a target (see [`Target::parse`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TargetError {
    /// The component has no `::` between scope and name.
    #[error("missing `::` between scope and name")]
    MissingSeparator,
    /// Nothing before `::`.
    #[error("empty scope before `::`")]
    EmptyScope,
    /// Nothing after `::`.
    #[error("empty name after `::`")]
    EmptyName,
    /// A `/` with nothing after it.
    #[error("empty child after `/`")]
    EmptyChild,
    /// A `#` with nothing after it.
    #[error("empty instance after `#`")]
    EmptyInstance,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_part() {
        assert_eq!(
            Target::parse("builtin::llm/agent-1#primary"),
            Ok(Target::new("builtin::llm")
                .with_child("agent-1")
                .with_instance("primary"))
        );
        assert_eq!(Target::parse("plugin::x"), Ok(Target::new("plugin::x")));
        assert_eq!(
            Target::parse("plugin::x#i"),
            Ok(Target::new("plugin::x").with_instance("i"))
        );
    }

    #[test]
    fn says_which_part_is_wrong() {
        assert_eq!(Target::parse("llm"), Err(TargetError::MissingSeparator));
        assert_eq!(Target::parse("::llm"), Err(TargetError::EmptyScope));
        assert_eq!(Target::parse("builtin::"), Err(TargetError::EmptyName));
        assert_eq!(Target::parse("builtin::llm/"), Err(TargetError::EmptyChild));
        assert_eq!(
            Target::parse("builtin::llm#"),
            Err(TargetError::EmptyInstance)
        );
    }
}

/// The target a hook context names (its `component_id`, `child_id` and
/// `instance`), owned: a dispatch of the whole context reads it before the
/// rules edit the context.
#[derive(Clone, Debug)]
pub(crate) struct ContextTarget {
    point: String,
    component: String,
    child: Option<String>,
    instance: Option<String>,
}

impl ContextTarget {
    /// The point and target `ctx` names.
    pub(crate) fn of(ctx: &super::HookContext) -> ContextTarget {
        ContextTarget {
            point: ctx.hook_point.clone(),
            component: ctx.component_id.clone(),
            child: ctx.child_id.clone(),
            instance: ctx.instance.clone(),
        }
    }

    /// The point's name.
    pub(crate) fn point(&self) -> &str {
        &self.point
    }

    /// The target, borrowed.
    pub(crate) fn target(&self) -> Target<'_> {
        Target {
            component: &self.component,
            child: self.child.as_deref(),
            instance: self.instance.as_deref(),
        }
    }
}
