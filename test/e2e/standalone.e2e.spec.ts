import { startStandalone } from '../support/processes';
import { describeNewcomerStory } from './newcomer-story';

describeNewcomerStory('standalone: npm start process, embedded PostgreSQL', () => startStandalone());
