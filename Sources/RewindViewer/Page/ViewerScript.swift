/// The page's script: `Resources/viewer.js`, a JavaScript file of its own (read, edited and
/// checked as JavaScript, e.g. `node --check`), compiled into the module by SwiftPM
/// (`.embedInCode`: bytes in the binary, no bundle to find at run time) and inlined into every
/// page.
///
/// It reads the embedded data (`#rw-data`, see ``SessionEncoding``) once and looks up "the
/// session at version v" from it on demand: columns are indexed directly, change lists by binary
/// search; it only draws what is on screen (the events around the cursor, the timeline
/// aggregated per pixel column, JSON trees opened lazily).
enum ViewerScript {
    static let javascript = String(decoding: PackageResources.viewer_js, as: UTF8.self)
}
