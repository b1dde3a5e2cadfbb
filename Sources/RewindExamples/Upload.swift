import RewindMachine

extension ExampleMachines {
    /// Parallel regions: `uploading` sends a file and renders its thumbnail at the same time. Each
    /// region ends in a final state; when both have, `done.state.uploading` moves to `complete`.
    /// `cancel` leaves both regions at once.
    ///
    /// ```
    /// idle ─start→ uploading ═╦═ file:      sending ─sent→ fileSent (final)
    ///                         ╚═ thumbnail: rendering ─rendered→ thumbnailReady (final)
    ///          done.state.uploading → complete;  cancel → idle
    /// ```
    public enum Upload {
        /// The definition.
        public static var definition: MachineDefinition {
            MachineDefinition("upload") {
                StateNode("idle") { On("start", to: "uploading") }
                ParallelNode("uploading") {
                    StateNode("file") {
                        StateNode("sending") { On("sent", to: "fileSent") }
                        FinalNode("fileSent")
                    }
                    StateNode("thumbnail") {
                        StateNode("rendering") { On("rendered", to: "thumbnailReady") }
                        FinalNode("thumbnailReady")
                    }
                    On("done.state.uploading", to: "complete")
                    On("cancel", to: "idle")
                }
                StateNode("complete") { On("reset", to: "idle") }
            }
        }

        /// The compiled machine.
        public static func machine() throws -> Machine {
            try Machine(definition)
        }
    }
}
