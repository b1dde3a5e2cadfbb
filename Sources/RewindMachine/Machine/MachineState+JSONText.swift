// The machine's state values written straight to their JSON text, member by member: the bytes
// `jsonValue.jsonBytes()` gives (their `Codable` encoding with `.sortedKeys`), without building
// the `JSONValue` tree first. Session snapshots are written this way (see `JSONObjectWriter` for
// what the tree cost); `MachineStateJSONValueTests` holds both to `JSONEncoder`'s bytes.

extension MachineState {
    /// Appends the state's JSON text: the bytes of `jsonValue.jsonBytes()`, members in
    /// `.sortedKeys` order.
    ///
    /// - Throws: ``JSONWriteError`` (its path from the state) when the context, the data or a
    ///   queued event's payload holds NaN or an infinity; `bytes` then holds part of the text.
    package func writeJSON(into bytes: inout [UInt8]) throws(JSONWriteError) {
        var object = JSONObjectWriter(into: &bytes)
        try object.member("configuration", into: &bytes) { bytes in
            JSONObjectWriter.writeArray(of: configuration, into: &bytes)
        }
        try object.member("context", context, into: &bytes)
        try object.member("data", .object(data), into: &bytes)
        try object.member("history", into: &bytes) { bytes throws(JSONWriteError) in
            var members = JSONObjectWriter(into: &bytes)
            // Usually empty; its keys sorted as `.sortedKeys` sorts them.
            for key in history.keys.sorted(by: JSONText.utf8Precedes) {
                try members.member(named: key, into: &bytes) { bytes in
                    JSONObjectWriter.writeArray(of: history[key] ?? [], into: &bytes)
                }
            }
            members.end(into: &bytes)
        }
        try object.member("internalQueue", into: &bytes) { bytes throws(JSONWriteError) in
            try JSONObjectWriter.writeArray(count: internalQueue.count, into: &bytes) {
                index, bytes throws(JSONWriteError) in
                try internalQueue[index].writeJSON(into: &bytes)
            }
        }
        try object.member("isFinished", .bool(isFinished), into: &bytes)
        try object.member("pendingSends", into: &bytes) { bytes throws(JSONWriteError) in
            try JSONObjectWriter.writeArray(count: pendingSends.count, into: &bytes) {
                index, bytes throws(JSONWriteError) in
                try pendingSends[index].writeJSON(into: &bytes)
            }
        }
        object.end(into: &bytes)
    }
}

extension Event {
    /// Appends the event's JSON text: the bytes of `jsonValue.jsonBytes()`.
    ///
    /// - Throws: ``JSONWriteError`` when the payload holds NaN or an infinity.
    package func writeJSON(into bytes: inout [UInt8]) throws(JSONWriteError) {
        var object = JSONObjectWriter(into: &bytes)
        try object.member("name", string: name, into: &bytes)
        try object.member("payload", payload, into: &bytes)
        object.end(into: &bytes)
    }
}

extension ScheduledEvent {
    /// Appends the scheduled event's JSON text: the bytes of `jsonValue.jsonBytes()` (`sendID`
    /// left out when `nil`).
    ///
    /// - Throws: ``JSONWriteError`` when the event's payload holds NaN or an infinity.
    package func writeJSON(into bytes: inout [UInt8]) throws(JSONWriteError) {
        var object = JSONObjectWriter(into: &bytes)
        try object.member("dueMilliseconds", integer: JSONNumber(due.wholeMilliseconds), into: &bytes)
        try object.member("event", into: &bytes) { bytes throws(JSONWriteError) in try event.writeJSON(into: &bytes) }
        if let sendID { try object.member("sendID", string: sendID, into: &bytes) }
        object.end(into: &bytes)
    }
}

extension ScreenStack {
    /// Appends the stack's JSON text: the bytes of `jsonValue.jsonBytes()`,
    /// `{"entries":[{"data":…,"screen":…},…],"screens":[…]}`.
    ///
    /// - Throws: ``JSONWriteError`` when an entry's data holds NaN or an infinity.
    package func writeJSON(into bytes: inout [UInt8]) throws(JSONWriteError) {
        var object = JSONObjectWriter(into: &bytes)
        try object.member("entries", into: &bytes) { bytes throws(JSONWriteError) in
            try JSONObjectWriter.writeArray(count: entries.count, into: &bytes) { index, bytes throws(JSONWriteError) in
                var members = JSONObjectWriter(into: &bytes)
                try members.member("data", entries[index].data, into: &bytes)
                try members.member("screen", string: entries[index].screen, into: &bytes)
                members.end(into: &bytes)
            }
        }
        try object.member("screens", into: &bytes) { bytes throws(JSONWriteError) in
            try JSONObjectWriter.writeArray(count: entries.count, into: &bytes) { index, bytes in
                JSONText.writeString(entries[index].screen, into: &bytes)
            }
        }
        object.end(into: &bytes)
    }
}
