// Requests of the legacy lobby API (validated like every other route: 422 with loc/msg/type details):
// contract classes of proto.
export {
  LegacyListQuery, LegacyConfigQuery, LegacyKickQuery, LegacyEventsQuery, LegacyLobbyParams, LegacyLobbyOrPlayerParams, LegacyCodeParams, LegacyPlayerParams,
  LegacySettings, LegacyCreateBody, LegacyUpdateBody, LegacyJoinBody, LegacyPlayerBody,
} from '@spawnpoint/proto';
