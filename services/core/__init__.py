"""What every Raffe service shares. Importing it chooses gRPC's polling first
(services.core.grpc_polling): gRPC reads that once, when it starts."""

from services.core.grpc_polling import choose_polling

choose_polling()
