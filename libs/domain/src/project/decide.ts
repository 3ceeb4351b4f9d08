import { conflict, notFound } from '../kit';
import { ProjectCommand } from './commands';
import { ProjectEvent } from './events';
import { applySettingsPatch, withLobbyConfigIds } from './settings';
import { ProjectState } from './state';

export function decide(command: ProjectCommand, state: ProjectState): ProjectEvent[] {
  if (command.type === 'CreateProject') {
    if (state.status !== 'none') throw conflict('project already exists');
    const { type: _t, now, ...data } = command;
    return [{ type: 'ProjectCreated', data: { ...data, at: now } }];
  }
  if (state.status === 'none') throw notFound('project');
  switch (command.type) {
    case 'UpdateSettings': {
      const { lobby_configs } = command.patch;
      const patch = lobby_configs ? { ...command.patch, lobby_configs: withLobbyConfigIds(state.settings.lobby_configs, lobby_configs, command.newIds ?? []) } : command.patch;
      return [{ type: 'ProjectSettingsUpdated', data: {
        projectId: state.projectId, settings: applySettingsPatch(state.settings, patch), at: command.now,
      } }];
    }
    case 'RotateKeys':
      return [{ type: 'ProjectKeysRotated', data: {
        projectId: state.projectId,
        previousServerKeyHash: state.serverKeyHash,
        previousClientKeyHash: state.clientKeyHash,
        serverKeyHash: command.serverKeyHash,
        clientKeyHash: command.clientKeyHash,
        at: command.now,
      } }];
    case 'ChangePlan':
      return [{ type: 'ProjectPlanChanged', data: {
        projectId: state.projectId,
        plan: command.plan ?? state.plan,
        rateLimits: command.rateLimits === undefined ? state.rateLimits : command.rateLimits,
        at: command.now,
      } }];
  }
}
