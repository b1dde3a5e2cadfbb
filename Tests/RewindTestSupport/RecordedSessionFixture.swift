import Foundation
import Rewind

/// The checkout app of the regression-test fixtures (`rewind session-test`): its machine, the
/// redaction policy its store records under, and two sessions recorded deterministically (a fixed
/// clock), so that the test file made from them is the same on every run
/// (`Tests/RecordedSessionFixtureTests`).
///
/// cart (root) --open {sku, price}--> item (pushed, the payload its data) --add--> cart (popped
/// to the root); cart --checkout--> address (pushed) --submit [deliverable: payload.postcode is
/// not empty]--> payment (pushed, the payload its data), else undeliverable; payment --pay
/// {card}--> done (set as the root). The guard reads the post code, which the store records
/// as the marker; the card is dropped.
public enum RecordedSessionFixture {
    /// The environment variable that makes ``machine()`` return the diverging definition (its
    /// value `diverging`): the same generated tests run against another definition.
    public static let definitionVariable = "REWIND_FIXTURE_DEFINITION"

    /// The definition the sessions were recorded with, or (`diverging`) one where `add` goes on
    /// to the address form instead of back to the cart.
    public static func definition(diverging: Bool = false) -> MachineDefinition {
        MachineDefinition("checkout") {
            StateNode("cart", navigation: .popToRoot) {
                On("open", to: "item")
                On("checkout", to: "address")
            }
            StateNode("item", navigation: .push()) {
                On("add", to: diverging ? "address" : "cart")
                On("back", to: "cart")
            }
            StateNode("address", navigation: .push()) {
                On("submit", to: "payment", guard: .named("deliverable"))
                On("submit", to: "undeliverable")
            }
            StateNode("payment", navigation: .push()) {
                On("pay", to: "done")
            }
            StateNode("undeliverable", navigation: .push())
            StateNode("done", navigation: .setRoot())
        }
    }

    /// The app's guard: an address is deliverable when it has a post code.
    public static let bindings = Bindings(guards: [
        "deliverable": { event, _ in !(event.payload["postcode"]?.stringValue ?? "").isEmpty }
    ])

    /// The app's machine: the recorded definition, or the diverging one when
    /// ``definitionVariable`` is `diverging`.
    public static func machine() throws -> Machine {
        let diverging = ProcessInfo.processInfo.environment[definitionVariable] == "diverging"
        return try Machine(definition(diverging: diverging), bindings: bindings)
    }

    /// The store's policy: the post code (read by the guard) marked, the card dropped.
    public static let policy: RedactionPolicy = [
        "checkout": [
            .marker("payload.postcode"), .marker("data.*.postcode"), .dropped("payload.card"), .dropped("data.*.card"),
        ]
    ]

    /// The post code and card number recorded in `order-1`: neither may appear in what is written.
    public static let secrets = ["SW1A 1AA", "4111 1111 1111 1111"]

    /// Records `order-1` (an item opened and added, checkout, a deliverable address, payment) and
    /// `order-2` (an item opened and left, checkout, an address without a post code) in a new
    /// store in `directory`, the clock starting at 2026-01-01 and moving 1.5 s per step.
    public static func record(in directory: String) async throws {
        let ticks = LockedBox<Int64>(0)
        var configuration = EngineConfiguration(durability: .noSync)
        configuration.redaction = policy
        configuration.clock = {
            let tick = ticks.withValue { value -> Int64 in
                value += 1
                return value
            }
            return Timestamp(microsecondsSince1970: 1_767_225_600_000_000 + tick * 1_500_000)
        }
        let engine = try Engine(directory: directory, configuration: configuration)
        defer { engine.close() }
        try engine.register(try machine())
        let first = try await engine.startSession(id: "order-1", machine: "checkout", context: ["currency": "EUR"])
        try await first.send("open", payload: ["sku": "mug-1", "price": 12.5])
        try await first.send("add")
        try await first.send("checkout")
        try await first.send("submit", payload: ["postcode": .string(secrets[0]), "city": "London"])
        try await first.send("pay", payload: ["card": .string(secrets[1]), "amount": 12.5])
        let second = try await engine.startSession(id: "order-2", machine: "checkout")
        try await second.send("open", payload: ["sku": "tea-7", "price": 4])
        try await second.send("back")
        try await second.send("checkout")
        try await second.send("submit", payload: ["postcode": "", "city": "Nowhere"])
    }
}
