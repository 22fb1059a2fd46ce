// The console calls the API inside the server as the signed-in person (src/http/internal-api.ts).
export {
  type ApiAnswer,
  type ApiError,
  type InternalApi as ConsoleApi,
  internalApi as consoleApi,
  type Query,
} from '../../http/internal-api.js';
