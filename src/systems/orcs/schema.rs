//! The built-in `orcs` schema: the 25 lifecycle points of the ORCS runtime.

use crate::runtime::AsPoint;
use crate::schema::{
    CommandInput, EditApplication, FieldDef, FieldType, PointDef, PointId, PointKind, Schema,
};
use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

/// The schema's name, as `schema orcs` names it (the default).
pub const NAME: &str = "orcs";

macro_rules! hook_points {
    ($( $(#[doc = $doc:literal])* $variant:ident = $name:literal, $kind:ident, [$($field:literal: $ty:ident),* $(,)?]; )*) => {
        /// Every lifecycle point of the ORCS runtime where rules can run.
        ///
        /// The names are the dotted forms rules use (`tool.pre_execute`);
        /// [`FromStr`] and [`Display`](fmt::Display) convert both ways.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
        pub enum HookPoint {
            $( $(#[doc = $doc])* #[serde(rename = $name)] $variant, )*
        }

        impl HookPoint {
            /// All 25 points, in lifecycle order.
            pub const ALL: [HookPoint; 25] = [ $( HookPoint::$variant, )* ];

            /// The dotted name, e.g. `tool.pre_execute`.
            pub fn as_str(self) -> &'static str {
                match self { $( HookPoint::$variant => $name, )* }
            }

            /// Pre, post or event.
            pub fn kind(self) -> PointKind {
                match self { $( HookPoint::$variant => PointKind::$kind, )* }
            }

            /// What the point is: its documentation, in one line.
            pub fn doc(self) -> &'static str {
                // Each doc line starts with a space: concatenated, the
                // lines are one sentence.
                match self { $( HookPoint::$variant => concat!($($doc),*).trim_ascii_start(), )* }
            }

            fn payload(self) -> Vec<FieldDef> {
                match self {
                    $( HookPoint::$variant => vec![$(FieldDef {
                        path: $field.to_string(),
                        ty: FieldType::$ty,
                        optional: false,
                        open: false,
                    }),*], )*
                }
            }
        }
    };
}

hook_points! {
    /// Before `Component::init()`.
    ComponentPreInit = "component.pre_init", Pre, ["snapshot": Any];
    /// After `Component::init()` succeeded.
    ComponentPostInit = "component.post_init", Post, ["init_result": Any];
    /// Before `Component::shutdown()`.
    ComponentPreShutdown = "component.pre_shutdown", Pre, ["status": String];
    /// After `Component::shutdown()`.
    ComponentPostShutdown = "component.post_shutdown", Post, ["snapshot": Any];
    /// Before `Component::on_request()`.
    RequestPreDispatch = "request.pre_dispatch", Pre, [
        "id": String, "category": String, "operation": String, "source": String,
        "target": String, "payload": Any, "timeout_ms": Int,
    ];
    /// After `Component::on_request()`.
    RequestPostDispatch = "request.post_dispatch", Post, [
        "request": Any, "response": Any, "result": Any, "operation": String, "elapsed_ms": Int,
    ];
    /// Before a signal is dispatched to a component.
    SignalPreDispatch = "signal.pre_dispatch", Pre, ["signal": Any];
    /// After a signal was dispatched.
    SignalPostDispatch = "signal.post_dispatch", Post, [
        "signal": Any, "signal_response": Any, "channel_action": Any,
    ];
    /// Before a child is spawned.
    ChildPreSpawn = "child.pre_spawn", Pre, [
        "child_config": Any, "parent_id": String, "capabilities": Int,
        "effective_capabilities": Int,
    ];
    /// After a child was spawned.
    ChildPostSpawn = "child.post_spawn", Post, [
        "child_id": String, "parent_id": String, "capabilities": Int,
    ];
    /// Before a child runs.
    ChildPreRun = "child.pre_run", Pre, ["child_id": String, "input": Any];
    /// After a child ran.
    ChildPostRun = "child.post_run", Post, [
        "child_id": String, "child_result": Any, "result": Any, "elapsed_ms": Int,
    ];
    /// Before a channel runner is spawned.
    ChannelPreCreate = "channel.pre_create", Pre, ["runtime_hints": Any];
    /// After a channel runner started.
    ChannelPostCreate = "channel.post_create", Post, ["handle": Any];
    /// Before a channel runner is torn down.
    ChannelPreDestroy = "channel.pre_destroy", Pre, ["exit_reason": String];
    /// After a channel runner was collected.
    ChannelPostDestroy = "channel.post_destroy", Post, ["snapshot": Any];
    /// Before a tool function runs.
    ToolPreExecute = "tool.pre_execute", Pre, [
        "tool": String, "tool_name": String, "args": Any, "capabilities": Int,
        "sandbox_root": String,
    ];
    /// After a tool function ran.
    ToolPostExecute = "tool.post_execute", Post, [
        "tool": String, "tool_name": String, "args": Any, "result": Any, "elapsed_ms": Int,
    ];
    /// Before a permission check.
    AuthPreCheck = "auth.pre_check", Pre, [
        "command": String, "capabilities": Int, "session": Any,
    ];
    /// After a permission check.
    AuthPostCheck = "auth.post_check", Post, ["command": String, "permission_result": Any];
    /// When a permission is granted at run time.
    AuthOnGrant = "auth.on_grant", Event, ["pattern": String, "granted_by": String];
    /// Before an event is broadcast on the bus.
    BusPreBroadcast = "bus.pre_broadcast", Pre, ["event": Any, "target_count": Int];
    /// After an event was broadcast.
    BusPostBroadcast = "bus.post_broadcast", Post, ["event": Any, "delivered_count": Int];
    /// When a component registers on the bus.
    BusOnRegister = "bus.on_register", Event, ["subscriptions": List];
    /// When a component unregisters from the bus.
    BusOnUnregister = "bus.on_unregister", Event, [];
}

impl HookPoint {
    /// True for points before an operation (rules may edit its input).
    pub fn is_pre(self) -> bool {
        self.kind() == PointKind::Pre
    }

    /// True for points after an operation (rules may replace its result).
    pub fn is_post(self) -> bool {
        self.kind() == PointKind::Post
    }

    /// True for notification points.
    pub fn is_event(self) -> bool {
        self.kind() == PointKind::Event
    }

    /// The point's [`PointId`] in the `orcs` schema: dispatching a
    /// [`HookPoint`] on an `orcs` table finds its rules by this id, with
    /// no name lookup.
    ///
    /// ```
    /// use hookc::HookPoint;
    /// let table = hookc::compile_str("a.hooks", "hook a on tool.pre_execute { abort \"no\" }")?.table;
    /// assert_eq!(table.point_id("tool.pre_execute"), Some(HookPoint::ToolPreExecute.id()));
    /// # Ok::<(), hookc::diag::Diagnostics>(())
    /// ```
    pub fn id(self) -> PointId {
        static TAG: OnceLock<u32> = OnceLock::new();
        let tag = *TAG.get_or_init(|| {
            crate::schema::fingerprint(NAME, HookPoint::ALL.iter().map(|p| p.as_str()))
        });
        // The variants are declared in `ALL`'s order, from 0.
        PointId::new(tag, self as u16)
    }
}

/// A [`HookPoint`] is its name and its id: on an `orcs` table dispatch finds
/// it by id; on a table of another schema that has a point of that name
/// (a custom schema that reuses ORCS names), by name.
impl AsPoint for HookPoint {
    fn point_name(&self) -> Option<&str> {
        Some(self.as_str())
    }

    fn point_id(&self) -> Option<PointId> {
        Some(self.id())
    }
}

impl fmt::Display for HookPoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not one of the 25 ORCS points.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown hook point `{0}`")]
pub struct UnknownHookPoint(pub String);

impl FromStr for HookPoint {
    type Err = UnknownHookPoint;

    /// Parses a dotted name: `"request.pre_dispatch"` → `RequestPreDispatch`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        HookPoint::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| UnknownHookPoint(s.to_string()))
    }
}

/// The `orcs` schema.
pub fn schema() -> Schema {
    Schema {
        name: NAME.to_string(),
        doc: "the lifecycle points of the ORCS runtime (the default schema)".to_string(),
        points: HookPoint::ALL
            .into_iter()
            .map(|p| PointDef {
                name: p.as_str().to_string(),
                doc: p.doc().to_string(),
                kind: p.kind(),
                // ORCS chains stop on abort and skip at every kind of point.
                blocking: true,
                payload: p.payload(),
                edits: EditApplication::AsEdited,
                outputs: Vec::new(),
            })
            .collect(),
        command_input: CommandInput::Context,
        component_scope: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twenty_five_points_eleven_pre_eleven_post_three_events() {
        assert_eq!(HookPoint::ALL.len(), 25);
        assert_eq!(HookPoint::ALL.iter().filter(|p| p.is_pre()).count(), 11);
        assert_eq!(HookPoint::ALL.iter().filter(|p| p.is_post()).count(), 11);
        let events: Vec<_> = HookPoint::ALL
            .iter()
            .filter(|p| p.is_event())
            .map(|p| p.as_str())
            .collect();
        assert_eq!(
            events,
            ["auth.on_grant", "bus.on_register", "bus.on_unregister"]
        );
    }

    #[test]
    fn ids_are_the_schema_slots() {
        let schema = schema();
        for (slot, point) in HookPoint::ALL.into_iter().enumerate() {
            assert_eq!(point.id().slot(), slot);
            assert_eq!(
                schema.points.get(slot).map(|p| p.name.as_str()),
                Some(point.as_str())
            );
            assert_eq!(
                point.id().schema(),
                crate::schema::fingerprint(NAME, schema.points.iter().map(|p| p.name.as_str()))
            );
        }
    }

    #[test]
    fn names_round_trip() {
        for p in HookPoint::ALL {
            assert_eq!(p.to_string().parse::<HookPoint>(), Ok(p));
            assert_eq!(serde_json::to_value(p).unwrap(), p.as_str());
        }
        assert_eq!(
            "request.pre_dispatch".parse(),
            Ok(HookPoint::RequestPreDispatch)
        );
        assert!("tool.pre_exec".parse::<HookPoint>().is_err());
    }

    #[test]
    fn every_point_has_its_doc() {
        assert_eq!(
            HookPoint::ToolPreExecute.doc(),
            "Before a tool function runs."
        );
        assert!(HookPoint::ALL
            .iter()
            .all(|p| p.doc().ends_with('.') && !p.doc().starts_with(' ')));
    }
}
