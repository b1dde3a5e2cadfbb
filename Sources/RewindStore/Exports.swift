// The store's API uses RewindLMDB's configuration, iteration and error types, and the machine's
// navigation vocabulary (records say what each step did to the navigation stack).
@_exported import RewindLMDB
@_exported import enum RewindValues.NavigationOperation
