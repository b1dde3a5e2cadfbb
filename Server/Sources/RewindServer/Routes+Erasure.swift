import Foundation
import Hummingbird
import Logging
import PostgresNIO

/// The erasure endpoints: a device's erasure notices (ingestion key of its app) and the app
/// team's erasure requests (erase key). Both delete through ``Erasure`` in one transaction.
extension Routes {
    func addErasureRoutes(to router: Router<BasicRequestContext>) {
        router.post("v1/stores/:storeID/erasures") { request, context in
            try await notices(request, context: context)
        }
        router.post("v1/erasures") { request, _ in
            try await erasureRequest(request)
        }
    }

    /// `POST /v1/stores/{storeID}/erasures`: applies the device's notices not applied yet and
    /// answers `{"through", "erased"}`.
    private func notices(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let caller = try await authenticate(request, needs: .ingest)
        let storeID = try storeID(context)
        let body = try await collectBody(of: request)
        let notices = try ErasureNotice.notices(fromJSON: body.readableBytesView)
        let answer = try await ErasureNotice.apply(
            notices, storeID: storeID, appID: caller.appID, client: client, logger: logger)
        // Checkpoints pass the erased sequences (and what was folded stays consistent).
        catchUp.wake(appID: caller.appID, storeID: storeID)
        for store in Set(answer.erased.flatMap { $0.sessions.flatMap { $0.stores.map(\.storeID) } }) {
            catchUp.wake(appID: caller.appID, storeID: store)
        }
        return try JSONResponse.make(body: answer)
    }

    /// `POST /v1/erasures`: erases a session, or the sessions whose context has a value, from
    /// every store of the app, and answers what it removed.
    private func erasureRequest(_ request: Request) async throws -> Response {
        let caller = try await authenticate(request, needs: .erase)
        let body = try await collectBody(of: request)
        let erasure = try ErasureRequest.parse(body.readableBytesView)
        let report = try await ErasureRequest.apply(
            erasure, appID: caller.appID, now: Date(), client: client, logger: logger)
        return try JSONResponse.make(body: report)
    }
}
