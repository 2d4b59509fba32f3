// Kura: the model, contexts and store of KuraCore, on the embedded LMDB
// engine this module adds. `import Kura` is all an app needs; KuraCore is
// what an engine of another product builds on, without LMDB.
@_exported import KuraCore
