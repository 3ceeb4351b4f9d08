import { Module } from '@nestjs/common';
import { LobbiesService } from './lobbies.service';

/** The lobbies service; temporarily in the projects package until it gets a workspace of its own. */
@Module({ providers: [LobbiesService], exports: [LobbiesService] })
export class LobbiesModule {}
