import { conflict, notFound } from '../kit';
import { ServerCommand } from './commands';
import { ServerEvent } from './events';
import { ServerState } from './state';

export function decide(command: ServerCommand, state: ServerState): ServerEvent[] {
  switch (command.type) {
    case 'StartServer': {
      if (state.status !== 'none') throw conflict('server already exists');
      const { type: _t, now, ...launch } = command;
      return [{ type: 'ServerStarted', data: { ...launch, at: now } }];
    }
    case 'MarkRunning':
      if (state.status === 'none') throw notFound('server');
      // A late "bound" report after a stop, or a repeated one, changes nothing.
      if (state.status !== 'launching') return [];
      return [{ type: 'ServerRunning', data: { serverId: state.serverId, at: command.now } }];
    case 'StopServer':
      if (state.status === 'none') throw notFound('server');
      if (state.status === 'stopped') throw conflict('server is already stopped');
      return [{ type: 'ServerStopped', data: { serverId: state.serverId, reason: command.reason, exitCode: null, at: command.now } }];
    case 'RecordExit':
      if (state.status === 'none') throw notFound('server');
      // The exit that follows our own stop is expected: the server is already stopped.
      if (state.status === 'stopped') return [];
      return [{ type: 'ServerStopped', data: { serverId: state.serverId, reason: command.reason, exitCode: command.exitCode, at: command.now } }];
  }
}
