// The machine's API speaks in the shared values (payloads, context and state data are
// `JSONValue`s; steps list `NavigationOperation`s), so `import RewindMachine` gives them too.
@_exported import RewindValues
