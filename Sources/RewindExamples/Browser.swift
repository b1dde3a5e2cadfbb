import RewindMachine

extension ExampleMachines {
    /// Deep history: a `browse` area with a feed (list, and a post with body and comments) and a
    /// profile; opening `settings` leaves it, and closing settings returns through the deep history
    /// `browse.history` to the exact nested screen left (for example the post's comments).
    ///
    /// ```
    /// app ─┬─ browse ─┬─ (deep history browse.history)
    ///      │          ├─ feed ─┬─ feedList
    ///      │          │        └─ post ─┬─ postBody
    ///      │          │                 └─ postComments
    ///      │          └─ profile
    ///      └─ settings
    /// ```
    public enum Browser {
        /// The definition.
        public static var definition: MachineDefinition {
            MachineDefinition("browser") {
                StateNode("app", initial: "browse") {
                    StateNode("browse", initial: "feed") {
                        HistoryNode("browse.history", .deep)
                        StateNode("feed", initial: "feedList") {
                            StateNode("feedList", navigation: .setRoot()) {
                                On("open", to: "post")
                            }
                            StateNode("post", initial: "postBody", navigation: .push()) {
                                StateNode("postBody") { On("showComments", to: "postComments") }
                                StateNode("postComments", navigation: .push()) {
                                    On("back", to: "postBody", navigation: .pop)
                                }
                                On("close", to: "feedList", navigation: .popToRoot)
                            }
                        }
                        StateNode("profile", navigation: .setRoot())
                        On("showProfile", to: "profile")
                        On("showFeed", to: "feed")
                        On("openSettings", to: "settings")
                    }
                    StateNode("settings", navigation: .push()) {
                        On("closeSettings", to: "browse.history", navigation: .pop)
                    }
                }
            }
        }

        /// The compiled machine.
        public static func machine() throws -> Machine {
            try Machine(definition)
        }
    }
}
