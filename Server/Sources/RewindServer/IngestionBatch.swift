import RewindStore

/// The body of `POST /v1/stores/{storeID}/records`: the RWB1 batch framing, whose one codec is
/// RewindStore's `RecordBatch` (the device's uploader writes it with the same code the server
/// reads it with). See Server/README.md for the format.
public typealias IngestionBatch = RecordBatch
