import { startDistributed } from '../support/processes';
import { describeNewcomerStory } from './newcomer-story';

describeNewcomerStory('distributed: one process per app over NATS', () => startDistributed());
