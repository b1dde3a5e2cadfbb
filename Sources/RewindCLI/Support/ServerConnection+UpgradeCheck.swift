import Foundation
import Rewind

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ServerConnection {
    /// The fleet server's upgrade check (`POST v1/machines/{machine}/upgrade-check`) of every
    /// device's sessions of `machine` against `definition`, called `label` in the report. The
    /// server streams through the sessions before it answers: the request may take as long as an
    /// hour.
    ///
    /// - Throws: ``CLIError/server(_:status:message:)`` when the server cannot be reached or
    ///   answers with an error.
    func upgradeCheck(of machine: String, against definition: MachineDefinition, label: String) async throws
        -> UpgradeCheckReport
    {
        try await post(
            UpgradeCheckReport.self, ["v1", "machines", machine, "upgrade-check"],
            query: [URLQueryItem(name: "label", value: label)], body: Data(definition.jsonDocument()), timeout: 3_600)
    }
}
