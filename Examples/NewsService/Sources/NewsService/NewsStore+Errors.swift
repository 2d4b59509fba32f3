import Hummingbird
import Kura
import NewsAPI

extension NewsStore {
    /// The answer's status for a store's error: 409 for a unique value
    /// taken or a conflict, 400 for a value the model refuses, 503 once the
    /// store is shutting down, 500 for the rest.
    public func status(of error: any Error) -> HTTPResponse.Status? {
        guard let error = error as? KuraError else { return nil }
        return switch error.code {
        case .storeClosed: .serviceUnavailable
        case .uniqueConstraintViolated, .conflict: .conflict
        case .validationFailed, .invalidFetchRequest: .badRequest
        default: .internalServerError
        }
    }
}
